//! `kabe info`.

use std::process::ExitCode;

use clap::Args;
use kabe_probe::internal::MaterialIndex;
use kabe_probe::Signature;

/// Arguments of `kabe info`.
#[derive(Args)]
pub struct InfoArgs {
    /// Variant: international, russian, kabe, ...
    #[arg(long, short, default_value = "international", value_parser = crate::args::variant_value)]
    variant: kabe_probe::Variant,
    /// Largest number of pieces (2 to 12).
    #[arg(long, short, default_value_t = 4, value_parser = clap::value_parser!(u32).range(2..=12))]
    pieces: u32,
}

pub fn run(args: &InfoArgs) -> anyhow::Result<ExitCode> {
    let variant = args.variant;
    outln!("{} tables up to {} pieces, in build order (side to move first; a signature", variant.name, args.pieces)?;
    outln!("and its colour flip are built together, pairs of one step in parallel)")?;
    outln!("{:>5} {:>5} {:>6} {:>9} {:>16} {:>14}", "step", "order", "sig", "flip", "positions", "men configs")?;
    let (mut order, mut total, mut step) = (0, 0u64, 0);
    let mut last_key = None;
    for pieces in 2..=args.pieces {
        for sig in Signature::all_with(pieces) {
            let index = MaterialIndex::new(variant, sig)
                .ok_or_else(|| anyhow::anyhow!("signature {sig} has too many positions to index"))?;
            let key = (pieces, sig.men());
            if last_key != Some(key) {
                step += 1;
                last_key = Some(key);
            }
            order += 1;
            total += index.len();
            outln!(
                "{step:>5} {order:>5} {:>6} {:>9} {:>16} {:>14}",
                sig.to_string(),
                sig.flipped().to_string(),
                index.len(),
                index.men_configurations()
            )?;
        }
    }
    outln!("{order} signatures, {total} positions (side to move normalised)")?;
    Ok(ExitCode::SUCCESS)
}
