//! Serde glue shared by the adapters of serde-based libraries:
//!
//! - `Serialize` for the plain tree, so that a library's serde writer
//!   (serde_json::to_vec, ciborium::into_writer, ...) encodes it directly;
//! - [`HashSeed`], a `DeserializeSeed` whose visitor absorbs every value into
//!   the hash as the deserializer reports it, building nothing: a streaming
//!   parse through a library's serde `Deserializer`.

use std::fmt;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};

use crate::hash::Sbh;
use crate::tree::Node;

impl Serialize for Node {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Node::Null => s.serialize_unit(),
            Node::Bool(b) => s.serialize_bool(*b),
            Node::Int(i) => s.serialize_i64(*i),
            Node::Uint(u) => s.serialize_u64(*u),
            Node::Double(d) => s.serialize_f64(*d),
            Node::Str(t) => s.serialize_str(t),
            Node::Array(a) => {
                let mut seq = s.serialize_seq(Some(a.len()))?;
                for v in a {
                    seq.serialize_element(v)?;
                }
                seq.end()
            }
            Node::Map(m) => {
                let mut map = s.serialize_map(Some(m.len()))?;
                for (k, v) in m {
                    map.serialize_entry(k.as_str(), v)?;
                }
                map.end()
            }
        }
    }
}

/// Hashes one value (and everything in it) as it is deserialized.
pub struct HashSeed<'a>(pub &'a mut Sbh);

impl<'de> DeserializeSeed<'de> for HashSeed<'_> {
    type Value = ();
    #[inline]
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for HashSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any value")
    }
    #[inline]
    fn visit_unit<E>(self) -> Result<(), E> {
        self.0.null();
        Ok(())
    }
    #[inline]
    fn visit_none<E>(self) -> Result<(), E> {
        self.0.null();
        Ok(())
    }
    fn visit_some<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
    #[inline]
    fn visit_bool<E>(self, b: bool) -> Result<(), E> {
        self.0.bool(b);
        Ok(())
    }
    #[inline]
    fn visit_i64<E>(self, i: i64) -> Result<(), E> {
        self.0.int(i);
        Ok(())
    }
    #[inline]
    fn visit_u64<E>(self, u: u64) -> Result<(), E> {
        self.0.uint(u);
        Ok(())
    }
    fn visit_i128<E: de::Error>(self, i: i128) -> Result<(), E> {
        if let Ok(v) = i64::try_from(i) {
            self.0.int(v);
        } else if let Ok(v) = u64::try_from(i) {
            self.0.uint(v);
        } else {
            return Err(E::custom("integer out of the 64-bit range"));
        }
        Ok(())
    }
    fn visit_u128<E: de::Error>(self, u: u128) -> Result<(), E> {
        match u64::try_from(u) {
            Ok(v) => {
                self.0.uint(v);
                Ok(())
            }
            Err(_) => Err(E::custom("integer out of the 64-bit range")),
        }
    }
    #[inline]
    fn visit_f64<E>(self, d: f64) -> Result<(), E> {
        self.0.double(d);
        Ok(())
    }
    #[inline]
    fn visit_str<E>(self, s: &str) -> Result<(), E> {
        self.0.str(s.as_bytes());
        Ok(())
    }
    #[inline]
    fn visit_bytes<E>(self, b: &[u8]) -> Result<(), E> {
        self.0.bin(b);
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        self.0.array();
        while seq.next_element_seed(HashSeed(&mut *self.0))?.is_some() {}
        self.0.end();
        Ok(())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        self.0.map();
        while map.next_key_seed(KeySeed(&mut *self.0))?.is_some() {
            map.next_value_seed(HashSeed(&mut *self.0))?;
        }
        self.0.end();
        Ok(())
    }
}

/// Hashes a map key (a string).
struct KeySeed<'a>(&'a mut Sbh);

impl<'de> DeserializeSeed<'de> for KeySeed<'_> {
    type Value = ();
    #[inline]
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string key")
    }
    #[inline]
    fn visit_str<E>(self, s: &str) -> Result<(), E> {
        self.0.key(s.as_bytes());
        Ok(())
    }
}
