//! Run-length code of WLD values (format 3), the stream zstd then compresses.
//!
//! A run of `n` equal values `v` (0 loss, 1 draw, 2 win) is one byte
//! `v | (n - 1) << 2` when `n <= 63`; a longer run is the byte `v | 63 << 2` followed by
//! `n - 64` as a little-endian base-128 varint. Capture positions hold no value of their
//! own in the file, so the writer lets them continue the run before them, and runs grow
//! long: this, not the entropy coder, is what makes WLD files small.

/// The run code of `values` (each 0, 1 or 2).
pub fn encode(values: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < values.len() {
        let v = values[i];
        let mut n = 1;
        while i + n < values.len() && values[i + n] == v {
            n += 1;
        }
        if n <= 63 {
            out.push(v | ((n - 1) as u8) << 2);
        } else {
            out.push(v | 63 << 2);
            let mut rest = (n - 64) as u64;
            loop {
                let b = (rest & 0x7F) as u8;
                rest >>= 7;
                if rest == 0 {
                    out.push(b);
                    break;
                }
                out.push(b | 0x80);
            }
        }
        i += n;
    }
    out
}

/// Expands a run code into `positions` values packed four to a byte (the layout the
/// readers index); `Err` says what is wrong with a malformed code.
///
/// # Errors
/// What is wrong, with the position reached, when a run has the value 3, a run length is
/// cut short, too long or overflows, or the runs do not cover exactly `positions`.
pub fn decode_packed(code: &[u8], positions: usize) -> Result<Vec<u8>, String> {
    let mut out = vec![0u8; positions.div_ceil(4)];
    let mut at = 0usize;
    let mut word = 0u64;
    let mut bytes = code.iter();
    while let Some(&b) = bytes.next() {
        let v = b & 3;
        if v == 3 {
            return Err(format!("run value 3 at position {at}"));
        }
        let mut n = (b >> 2) as usize + 1;
        if n == 64 {
            let mut rest = 0u64;
            let mut shift = 0;
            loop {
                let &c = bytes.next().ok_or_else(|| format!("run length cut short at position {at}"))?;
                if shift > 42 {
                    return Err(format!("run length too long at position {at}"));
                }
                rest |= ((c & 0x7F) as u64) << shift;
                shift += 7;
                if c & 0x80 == 0 {
                    break;
                }
            }
            n = usize::try_from(rest).ok().and_then(|r| r.checked_add(64)).ok_or("run length overflows")?;
        }
        let end = at
            .checked_add(n)
            .filter(|&e| e <= positions)
            .ok_or_else(|| format!("runs cover more than the block's {positions} positions"))?;
        // Values gather in a 64-bit word of 32 positions that goes out whole: a block of
        // short runs, the slowest to decode, costs a few register operations a run, not a
        // read-modify-write of memory a position (its cold probe was the p99).
        let fill = u64::from(v) * 0x5555_5555_5555_5555;
        let mut next = at;
        while next < end {
            let offset = next % 32;
            let take = (32 - offset).min(end - next);
            // take is 1..=32: the shift is 0..=62, no branch for a full word
            word |= (fill & (u64::MAX >> (64 - 2 * take))) << (2 * offset);
            next += take;
            if next.is_multiple_of(32) {
                if word != 0 {
                    let byte = (next / 32 - 1) * 8;
                    out[byte..byte + 8].copy_from_slice(&word.to_le_bytes());
                }
                word = 0;
            }
        }
        at = end;
    }
    if at != positions {
        return Err(format!("runs cover {at} of the block's {positions} positions"));
    }
    if !at.is_multiple_of(32) {
        let byte = at / 32 * 8;
        let left = out.len() - byte;
        out[byte..].copy_from_slice(&word.to_le_bytes()[..left]);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn packed(values: &[u8]) -> Vec<u8> {
        let mut out = vec![0u8; values.len().div_ceil(4)];
        for (i, v) in values.iter().enumerate() {
            out[i / 4] |= v << (2 * (i % 4));
        }
        out
    }

    #[test]
    fn long_runs_take_a_few_bytes() {
        let values = vec![2u8; 100_000];
        let code = encode(&values);
        assert_eq!(code.len(), 4);
        assert_eq!(decode_packed(&code, values.len()), Ok(packed(&values)));
    }

    #[test]
    fn malformed_codes_are_errors() {
        assert!(decode_packed(&[3], 1).expect_err("malformed").contains("value 3"));
        assert!(decode_packed(&[0xFC], 100).expect_err("malformed").contains("cut short"));
        assert!(decode_packed(&[4], 1).expect_err("malformed").contains("more than"));
        assert!(decode_packed(&[0], 2).expect_err("malformed").contains("cover 1 of"));
        assert!(decode_packed(&[0xFC, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F], 10).is_err());
    }

    proptest! {
        #[test]
        fn decoding_inverts_encoding(runs in prop::collection::vec((0u8..3, 1usize..300), 0..40)) {
            let values: Vec<u8> = runs.iter().flat_map(|&(v, n)| std::iter::repeat_n(v, n)).collect();
            prop_assert_eq!(decode_packed(&encode(&values), values.len()), Ok(packed(&values)));
        }

        #[test]
        fn short_runs_across_word_edges_decode(runs in prop::collection::vec((0u8..3, 1usize..6), 0..2000)) {
            let values: Vec<u8> = runs.iter().flat_map(|&(v, n)| std::iter::repeat_n(v, n)).collect();
            prop_assert_eq!(decode_packed(&encode(&values), values.len()), Ok(packed(&values)));
        }

        #[test]
        fn arbitrary_bytes_never_panic(code in prop::collection::vec(any::<u8>(), 0..64), positions in 0usize..5000) {
            let _ = decode_packed(&code, positions);
        }
    }
}
