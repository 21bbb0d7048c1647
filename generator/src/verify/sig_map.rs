//! A map from [`Signature`] to a value, read by the signature's dense key in one array
//! lookup: the verifier places every successor it meets, and a search through an ordered
//! map there was a tenth of its time.

use std::ops::Index;

use kabe_probe::Signature;

/// Values by signature; iteration in insertion order.
pub(crate) struct SigMap<T> {
    /// [`Signature::key`] to a place in `entries`; `u32::MAX` where none.
    slots: Box<[u32]>,
    entries: Vec<(Signature, T)>,
}

impl<T> Default for SigMap<T> {
    fn default() -> Self {
        SigMap { slots: vec![u32::MAX; Signature::KEYS].into_boxed_slice(), entries: Vec::new() }
    }
}

impl<T> SigMap<T> {
    #[inline]
    pub(crate) fn get(&self, signature: &Signature) -> Option<&T> {
        let slot = *self.slots.get(signature.key()?)?;
        self.entries.get(slot as usize).map(|(_, value)| value)
    }

    pub(crate) fn contains_key(&self, signature: &Signature) -> bool {
        self.get(signature).is_some()
    }

    /// Sets `signature`'s value; a signature without a dense key (more than 15 pieces of
    /// a kind: no table holds it) is not kept.
    pub(crate) fn insert(&mut self, signature: Signature, value: T) {
        let Some(key) = signature.key() else { return };
        match self.slots[key] {
            u32::MAX => {
                self.slots[key] = self.entries.len() as u32;
                self.entries.push((signature, value));
            }
            slot => self.entries[slot as usize].1 = value,
        }
    }

    /// `signature`'s value, made by `make` where it has none.
    pub(crate) fn get_or_insert_with(&mut self, signature: Signature, make: impl FnOnce() -> T) -> Option<&T> {
        if !self.contains_key(&signature) {
            self.insert(signature, make());
        }
        self.get(&signature)
    }

    pub(crate) fn clear(&mut self) {
        let entries = std::mem::take(&mut self.entries);
        self.clear_slots(&entries);
    }

    /// Keeps the values of the signatures `keep` says.
    pub(crate) fn retain(&mut self, keep: impl Fn(&Signature) -> bool) {
        let entries = std::mem::take(&mut self.entries);
        self.clear_slots(&entries);
        for (signature, value) in entries {
            if keep(&signature) {
                self.insert(signature, value);
            }
        }
    }

    fn clear_slots(&mut self, entries: &[(Signature, T)]) {
        for (signature, _) in entries {
            if let Some(key) = signature.key() {
                self.slots[key] = u32::MAX;
            }
        }
    }

    pub(crate) fn values(&self) -> impl Iterator<Item = &T> {
        self.entries.iter().map(|(_, value)| value)
    }
}

impl<T> Index<&Signature> for SigMap<T> {
    type Output = T;

    fn index(&self, signature: &Signature) -> &T {
        self.get(signature).unwrap_or_else(|| panic!("no entry for {signature}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_found_by_signature_replaced_and_cleared() {
        let mut map = SigMap::default();
        let (a, b) = (Signature::new(1, 2, 0, 1), Signature::new(0, 1, 1, 2));
        map.insert(a, 1);
        map.insert(b, 2);
        map.insert(a, 3);
        assert_eq!((map.get(&a), map.get(&b), map[&b]), (Some(&3), Some(&2), 2));
        assert!(!map.contains_key(&Signature::new(2, 0, 0, 1)));
        assert_eq!(map.values().sum::<i32>(), 5);
        map.retain(|s| *s == b);
        assert_eq!((map.get(&a), map.get(&b)), (None, Some(&2)));
        map.insert(a, 4);
        assert_eq!(map.values().sum::<i32>(), 6);
        map.clear();
        assert!(map.get(&a).is_none() && map.values().next().is_none());
        assert_eq!(map.get_or_insert_with(b, || 7), Some(&7));
    }
}
