//! The committed C header is what cbindgen makes of the current source.

use std::path::Path;

#[test]
fn the_committed_header_is_current() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml")).expect("cbindgen.toml");
    let bindings = cbindgen::Builder::new()
        .with_crate(crate_dir)
        .with_config(config)
        .generate()
        .expect("cbindgen reads capi/src/lib.rs");
    let mut generated = Vec::new();
    bindings.write(&mut generated);
    let path = crate_dir.join("include/kabe.h");
    if std::env::var_os("KABE_BLESS").is_some() {
        std::fs::write(&path, &generated).expect("write header");
    }
    let committed = std::fs::read(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "{} is stale: regenerate with KABE_BLESS=1 cargo test -p kabe-capi --test suites header",
        path.display()
    );
}

#[test]
fn the_variant_numbers_are_the_places_in_variant_all() {
    use kabe_probe::Variant;
    let numbered = [
        (kabe::KABE_INTERNATIONAL, Variant::INTERNATIONAL),
        (kabe::KABE_RUSSIAN, Variant::RUSSIAN),
        (kabe::KABE_RUSSIAN_FREE_LANDING, Variant::RUSSIAN_FREE_LANDING),
        (kabe::KABE_KABE, Variant::KABE),
        (kabe::KABE_KABE_SHORT_KING_CAPTURE, Variant::KABE_SHORT_KING_CAPTURE),
        (kabe::KABE_ENGLISH, Variant::ENGLISH),
        (kabe::KABE_ITALIAN, Variant::ITALIAN),
        (kabe::KABE_POOL, Variant::POOL),
        (kabe::KABE_BRAZILIAN, Variant::BRAZILIAN),
        (kabe::KABE_CZECH, Variant::CZECH),
        (kabe::KABE_GIVEAWAY, Variant::GIVEAWAY),
        (kabe::KABE_ANTIDRAUGHTS, Variant::ANTIDRAUGHTS),
        (kabe::KABE_PODDAVKI, Variant::PODDAVKI),
        (kabe::KABE_TURKISH, Variant::TURKISH),
        (kabe::KABE_TURKISH_CROWN_AT_END, Variant::TURKISH_CROWN_AT_END),
        (kabe::KABE_TURKISH_CROWN_AND_STOP, Variant::TURKISH_CROWN_AND_STOP),
    ];
    assert_eq!(numbered.len(), Variant::ALL.len());
    for (number, variant) in numbered {
        assert_eq!(Variant::ALL[number as usize], variant, "{}", variant.name);
    }
}
