//! Memory of the harness's own, outside the malloc heap that the measured
//! libraries use: the tree file while the tree is built, the input of a
//! parse test, and the copy of a Write test's output kept for verification
//! and for the hashing alone. The port of bench/harness/pages.c, which says
//! why: in the heap these leave holes, or sit in the way, where a library's
//! buffers grow, and whether its output is then moved in every iteration
//! depends on the luck of the sizes.

use std::io::Read;
use std::ops::{Deref, DerefMut};

/// Zero-filled bytes in anonymous pages of their own (mmap).
pub struct Pages {
    ptr: *mut u8,
    len: usize,
}

impl Pages {
    /// `len` zero bytes; aborts when the system has no memory.
    pub fn zeroed(len: usize) -> Pages {
        // SAFETY: an anonymous private mapping of at least one byte; the
        // result is checked before use.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len.max(1),
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            std::process::abort();
        }
        Pages { ptr: p.cast(), len }
    }

    /// A copy of `data`.
    pub fn copy_of(data: &[u8]) -> Pages {
        let mut p = Pages::zeroed(data.len());
        p.copy_from_slice(data);
        p
    }

    /// The whole file followed by `pad` zero bytes (included in the length).
    pub fn read_file(path: &str, pad: usize) -> std::io::Result<Pages> {
        let mut f = std::fs::File::open(path)?;
        let n =
            usize::try_from(f.metadata()?.len()).map_err(|_| std::io::Error::from(std::io::ErrorKind::OutOfMemory))?;
        let mut p = Pages::zeroed(n + pad);
        f.read_exact(&mut p[..n])?;
        Ok(p)
    }
}

impl Deref for Pages {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        // SAFETY: ptr is a live mapping of at least len bytes, owned by self.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

impl DerefMut for Pages {
    fn deref_mut(&mut self) -> &mut [u8] {
        // SAFETY: as in deref, and &mut self is the only access.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }
}

impl Drop for Pages {
    fn drop(&mut self) {
        // SAFETY: the mapping made in zeroed, unmapped once.
        unsafe {
            libc::munmap(self.ptr.cast(), self.len.max(1));
        }
    }
}
