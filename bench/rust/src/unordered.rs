//! Hashing the maps of a library that does not keep the document's key
//! order (`Adapter.unordered`; SPEC.md and hash.h, "Maps without order"):
//! each entry is hashed on its own into a fresh state (key, then value), and
//! the map absorbs the wrapping sum of the entry hashes and their count.

use crate::hash::Sbh;

/// Hash a map whose entries come in no particular order: `entry` absorbs
/// one entry (its key, then its value) into the fresh state it is given.
pub fn map<T, E>(
    h: &mut Sbh,
    entries: impl IntoIterator<Item = T>,
    mut entry: impl FnMut(T, &mut Sbh) -> Result<(), E>,
) -> Result<(), E> {
    let mut sum = 0u64;
    let mut count = 0u64;
    for e in entries {
        let mut s = Sbh::new();
        entry(e, &mut s)?;
        sum = sum.wrapping_add(s.finish());
        count += 1;
    }
    h.unordered_map(sum, count);
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::hash::Sbh;
    use crate::tree::Node;

    /// Agrees with the reference's order-independent hash of the tree, in
    /// any entry order.
    #[test]
    fn matches_the_tree_hash_without_order() {
        let entries = vec![
            ("b".to_string(), Node::Int(-3)),
            ("a".to_string(), Node::Map(vec![("x".into(), Node::Str("y".into())), ("w".into(), Node::Null)])),
            ("c".to_string(), Node::Array(vec![Node::Double(0.5), Node::Bool(true)])),
        ];
        let mut want = Sbh::new();
        Node::Map(entries.clone()).hash_into_unordered(&mut want);
        for order in [[0, 1, 2], [2, 0, 1], [1, 2, 0]] {
            let mut h = Sbh::new();
            super::map(&mut h, order.iter().map(|&i| &entries[i]), |(k, v), e| {
                e.key(k.as_bytes());
                v.hash_into_unordered(e);
                Ok::<(), ()>(())
            })
            .unwrap();
            assert_eq!(h.finish(), want.finish());
        }
    }
}
