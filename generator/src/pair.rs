//! A table pair: a material signature and its colour flip. A quiet move changes the side
//! to move but not the material, so the two form one game graph, solved together; a
//! symmetric signature (its own flip) is a pair of one.

use std::collections::BTreeSet;
use std::fmt;
use std::ops::Deref;

use kabe_probe::internal::MaterialIndex;
use kabe_probe::table::Metric;
use kabe_probe::{DrawRules, Signature, Variant};

/// One table: a signature and a metric.
pub type TableId = (Signature, Metric);

/// A signature and its colour flip, smaller first; as a slice, its one or two signatures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TablePair {
    signatures: [Signature; 2],
    len: u8,
}

impl TablePair {
    /// The pair `signature` belongs to.
    ///
    /// ```
    /// use kabe_generator::TablePair;
    /// use kabe_probe::Signature;
    /// let pair = TablePair::of(Signature::new(1, 2, 0, 1));
    /// assert_eq!(pair.to_string(), "0112+1201");
    /// assert_eq!(TablePair::of(Signature::new(0, 3, 0, 3)).len(), 1);
    /// ```
    pub fn of(signature: Signature) -> TablePair {
        let flipped = signature.flipped();
        let (first, second) = if flipped < signature { (flipped, signature) } else { (signature, flipped) };
        TablePair { signatures: [first, second], len: if first == second { 1 } else { 2 } }
    }

    /// The smaller signature, which names the pair's job.
    pub fn first(&self) -> Signature {
        self.signatures[0]
    }

    /// The tables a job for the pair reads: for every material one move of the pair can
    /// lead to outside it (captures, promotions), its DTW table and, where the rules keep
    /// one, its rule table.
    pub fn inputs(&self, variant: Variant, rules: &DrawRules) -> Vec<TableId> {
        let mut reached: BTreeSet<Signature> = BTreeSet::new();
        for sig in self.iter() {
            reached.extend(successors(*sig));
        }
        reached.retain(|s| !self.contains(s) && MaterialIndex::new(variant, *s).is_some_and(|i| !i.is_empty()));
        let mut inputs = Vec::new();
        for sig in reached {
            inputs.push((sig, Metric::Dtw));
            if rules.context(sig).is_some() {
                inputs.push((sig, Metric::Rules(rules.set)));
            }
        }
        inputs
    }
}

impl Deref for TablePair {
    type Target = [Signature];

    fn deref(&self) -> &[Signature] {
        &self.signatures[..self.len as usize]
    }
}

impl<'a> IntoIterator for &'a TablePair {
    type Item = &'a Signature;
    type IntoIter = std::slice::Iter<'a, Signature>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl fmt::Display for TablePair {
    /// `0112+1201`, or one signature for a symmetric one.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, sig) in self.iter().enumerate() {
            if i > 0 {
                f.write_str("+")?;
            }
            write!(f, "{sig}")?;
        }
        Ok(())
    }
}

/// The signatures (side to move first) a move of the side to move in `sig` can lead
/// to, the game not over: any number of the opponent's men and kings captured, and at
/// most one of the mover's men crowned. Some may be out of reach on the board; they
/// are built before the pair all the same, so depending on them costs nothing.
pub(crate) fn successors(sig: Signature) -> Vec<Signature> {
    let movers = [(sig.white_men, sig.white_kings)]
        .into_iter()
        .chain((sig.white_men > 0).then(|| (sig.white_men - 1, sig.white_kings + 1)));
    let mut out = Vec::new();
    for (wm, wk) in movers {
        for bm in 0..=sig.black_men {
            for bk in 0..=sig.black_kings {
                if bm + bk > 0 {
                    out.push(Signature::new(bm, bk, wm, wk));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pair_is_a_signature_and_its_flip_smaller_first() {
        let a = Signature::new(2, 1, 0, 1);
        assert_eq!(TablePair::of(a), TablePair::of(a.flipped()));
        assert_eq!(&TablePair::of(a)[..], &[a.flipped(), a]);
        assert_eq!(TablePair::of(a).first(), a.flipped());
        let symmetric = Signature::new(1, 1, 1, 1);
        assert_eq!(&TablePair::of(symmetric)[..], &[symmetric]);
        assert_eq!(TablePair::of(symmetric).to_string(), "1111");
    }
}
