//! What a verification did not see: a set still being built, or left half built. The
//! verifier derives the files that are there; this names what shows that others should
//! be: a build holding the set's lock, the checkpoints, scratch and temporary files of a
//! pass stopped in the middle, a pair with the tables of one side only, and tables whose
//! moves lead to a material with none.

use std::collections::BTreeMap;
use std::path::Path;

use kabe_probe::internal::table::TableDir;
use kabe_probe::internal::MaterialIndex;
use kabe_probe::table::Metric;
use kabe_probe::{Signature, Variant};

/// The endings of the files a build leaves while a pair is unfinished, and what each is.
const LEFT_BY_A_BUILD: [(&str, &str); 8] = [
    (".checkpoint", "the checkpoint of a pass stopped in the middle"),
    (".checkpoint-tmp", "a checkpoint being written"),
    (".slices.journal", "the journal of a pair solved in slices, stopped in the middle"),
    (".slices.tmp", "the scratch values of a pair solved in slices"),
    (".results.scratch", "results the theory pass left for a rule pass not run yet"),
    (".scratch-tmp", "results being written"),
    (".kabe.tmp", "a table being written"),
    (".journal-tmp", "a slice journal being written"),
];

/// One line each for what shows the set of `variant` under `dir` (whose table files are
/// `found`) unfinished; empty for a set that is whole.
pub(crate) fn unfinished(dir: &Path, variant: &Variant, found: &BTreeMap<Signature, Vec<Metric>>) -> Vec<String> {
    let mut out = Vec::new();
    let folder = dir.join(variant.name);
    if crate::files::build_running(dir, variant) {
        out.push(format!(
            "{}: a build is writing this set now (its lock is held): verify it when the build ends",
            crate::files::lock_path(dir, variant).display()
        ));
    }
    let mut left: Vec<String> = std::fs::read_dir(&folder)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            let (_, what) = LEFT_BY_A_BUILD.iter().find(|(end, _)| name.ends_with(end))?;
            Some(format!(
                "{}: {what}: a build of this set has not finished (run it again)",
                folder.join(&name).display()
            ))
        })
        .collect();
    left.sort();
    out.extend(left);
    let layout = TableDir::new(dir);
    // Each missing material named once, with the first table that leads to it.
    let mut led_to: BTreeMap<Signature, Signature> = BTreeMap::new();
    for &sig in found.keys() {
        let flip = sig.flipped();
        if !found.contains_key(&flip) {
            out.push(format!(
                "{}: missing: {sig} has tables, its colour flip {flip} none (a pair is built and kept together)",
                layout.path(variant, flip, Metric::Dtw).display()
            ));
        }
        for next in crate::pair::successors(sig) {
            let absent = !found.contains_key(&next) && !found.contains_key(&next.flipped());
            if absent && MaterialIndex::new(*variant, next).is_some() {
                led_to.entry(next.min(next.flipped())).or_insert(sig);
            }
        }
    }
    for (next, from) in led_to {
        out.push(format!(
            "{}: missing: moves of {from} lead to {next}, which has no tables here",
            layout.path(variant, next, Metric::Dtw).display()
        ));
    }
    out
}
