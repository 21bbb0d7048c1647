//! The JSON of a probe, defined once for every front end: `kabe probe --json`, the API
//! of `kabe serve` and the Python package's `to_dict` speak this shape.

use kabe_probe::rules::exact::{MoveVerdict, Verdict};
use kabe_probe::{Position, Wld};
use serde_json::{json, Value};

/// `win`, `draw` or `loss`.
pub fn wld_word(w: Wld) -> &'static str {
    match w {
        Wld::Win => "win",
        Wld::Draw => "draw",
        Wld::Loss => "loss",
    }
}

/// A verdict: exact result, theoretical result and distance, the governing count, the
/// distance within it, and whether the count is what decides.
pub fn verdict_json(v: &Verdict) -> Value {
    json!({
        "exact": wld_word(v.exact),
        "theoretical": wld_word(v.theoretical.wld()),
        "theoretical_plies": v.theoretical.plies(),
        "count": v.count.map(|(article, left)| json!({"article": article, "plies_left": left})),
        "within_count_plies": v.within.decided().map(|(_, p)| p),
        "rule_decides": v.rule_decides(),
    })
}

/// A move of `position` with its exact result for the mover and the distances after it.
pub fn move_json(position: &Position, m: &MoveVerdict) -> Value {
    json!({
        "move": position.move_text(&m.mv),
        "exact": wld_word(m.exact),
        "theoretical_plies_after": m.child.theoretical.plies(),
        "within_count_plies_after": m.child.within.decided().map(|(_, p)| p),
    })
}
