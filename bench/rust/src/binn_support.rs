//! Glue shared by the Binn adapters (binn-ir, binn-rs).

use crate::harness::Failure;

/// An integer in the Binn type that Binn's own C library writes for it
/// (liteserver/binn, binn.c `compress_int`), as the specification's examples
/// and the reference encoder do: values >= 0 in the smallest of uint8,
/// uint16, uint32 and uint64, negative ones in the smallest of int8, int16,
/// int32 and int64. Neither crate chooses a width by itself.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Int {
    U8(u8),
    U16(u16),
    U32(u32),
    U64(u64),
    I8(i8),
    I16(i16),
    I32(i32),
    I64(i64),
}

impl Int {
    #[inline]
    pub fn of_u64(u: u64) -> Int {
        if let Ok(v) = u8::try_from(u) {
            Int::U8(v)
        } else if let Ok(v) = u16::try_from(u) {
            Int::U16(v)
        } else if let Ok(v) = u32::try_from(u) {
            Int::U32(v)
        } else {
            Int::U64(u)
        }
    }

    #[inline]
    pub fn of_i64(i: i64) -> Int {
        if i >= 0 {
            Int::of_u64(i as u64)
        } else if let Ok(v) = i8::try_from(i) {
            Int::I8(v)
        } else if let Ok(v) = i16::try_from(i) {
            Int::I16(v)
        } else if let Ok(v) = i32::try_from(i) {
            Int::I32(v)
        } else {
            Int::I64(i)
        }
    }
}

/// binn-ir's decoder over the whole input: the one value it holds, or the
/// library's error (binn_ir::decode answers Ok(None) at the end of its
/// input, and stops after one value).
pub fn binn_ir_decode(data: &[u8]) -> Result<binn_ir::Value, Failure> {
    let mut rd = data;
    let v = binn_ir::decode(&mut rd)?.ok_or_else(|| Failure("binn-ir decoded no value (empty input)".into()))?;
    if !rd.is_empty() {
        return Err(Failure(format!("{} bytes after the value binn-ir decoded", rd.len())));
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::Int;

    #[test]
    fn smallest_type() {
        // the specification's example: [123, -456, 789]
        assert_eq!(Int::of_i64(123), Int::U8(123));
        assert_eq!(Int::of_i64(-456), Int::I16(-456));
        assert_eq!(Int::of_i64(789), Int::U16(789));
        assert_eq!(Int::of_i64(-128), Int::I8(-128));
        assert_eq!(Int::of_i64(-129), Int::I16(-129));
        assert_eq!(Int::of_i64(i64::MIN), Int::I64(i64::MIN));
        assert_eq!(Int::of_u64(u64::MAX), Int::U64(u64::MAX));
        assert_eq!(Int::of_u64(1 << 32), Int::U64(1 << 32));
        assert_eq!(Int::of_u64(u32::MAX as u64), Int::U32(u32::MAX));
    }
}
