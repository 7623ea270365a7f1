//! How one posting is written and read: the gap to the previous document and the frequencies,
//! as varints, with a two-byte form for the common posting (see the format in the parent module).
//! Everything that knows the byte layout is here; blocks and lists only call these functions.

use super::DocId;
#[inline]
fn put_varint(out: &mut Writer<'_>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

#[inline]
fn get_varint(bytes: &[u8], at: &mut usize) -> u64 {
    let b = bytes[*at];
    *at += 1;
    if b < 0x80 {
        return u64::from(b);
    }
    let mut v = u64::from(b & 0x7f);
    let mut shift = 7;
    loop {
        let b = bytes[*at];
        *at += 1;
        v |= u64::from(b & 0x7f) << shift;
        if b < 0x80 {
            return v;
        }
        shift += 7;
    }
}

/// Reads the posting at `*at` given the previous document, skipping its frequencies: the
/// document only, which is all a seek needs until it reaches its target.
#[inline(always)]
pub(super) fn skip(bytes: &[u8], at: &mut usize, prev: DocId) -> DocId {
    // The common posting: a one-byte gap and a one-byte header of frequencies all 1.
    if let Some(&[gap, header]) = bytes.get(*at..*at + 2) {
        if gap < 0x80 && header & 0x81 == 0x01 {
            *at += 2;
            return prev + DocId::from(gap);
        }
    }
    let doc = prev + get_varint(bytes, at) as DocId;
    let header = get_varint(bytes, at);
    skip_freqs(bytes, at, header);
    doc
}

/// Decodes the posting at `*at` given the previous document: (document, frequencies).
#[inline(always)]
pub(super) fn decode<const F: usize>(
    bytes: &[u8],
    at: &mut usize,
    prev: DocId,
) -> (DocId, [u32; F]) {
    let doc = prev + get_varint(bytes, at) as DocId;
    let header = get_varint(bytes, at);
    let mask = header >> 1;
    let mut tf = [0u32; F];
    if header & 1 == 1 {
        for (f, t) in tf.iter_mut().enumerate() {
            *t = ((mask >> f) & 1) as u32;
        }
    } else {
        for (f, t) in tf.iter_mut().enumerate() {
            if (mask >> f) & 1 == 1 {
                *t = get_varint(bytes, at) as u32;
            }
        }
    }
    (doc, tf)
}

/// The two bytes [`encode`] writes for the common posting (a gap under 128, every non-zero
/// frequency 1, fields 0..6), without its buffer and loops; `None` for any other.
#[inline]
pub(super) fn encode_common<const F: usize>(gap: DocId, tf: &[u32; F]) -> Option<[u8; 2]> {
    if gap >= 0x80 || F > 6 {
        return None;
    }
    let mut mask = 0u8;
    for (f, &t) in tf.iter().enumerate() {
        if t > 1 {
            return None;
        }
        mask |= (t as u8) << f;
    }
    Some([gap as u8, (mask << 1) | 1])
}

/// One posting's frequencies as encoded, decoded only as the search reads them: the fields that
/// hold the term (as a mask) and, unless every frequency is 1, where their varints start.
#[derive(Debug, Clone, Copy)]
pub(in crate::index) struct Freqs<'a> {
    mask: u64,
    ones: bool,
    bytes: &'a [u8],
    at: usize,
}

impl Freqs<'_> {
    /// Calls `f(field, frequency)` for each field holding the term, in field order.
    #[inline(always)]
    pub(in crate::index) fn for_each(self, mut f: impl FnMut(usize, u32)) {
        let mut mask = self.mask;
        let mut at = self.at;
        while mask != 0 {
            let field = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            let tf = if self.ones {
                1
            } else {
                get_varint(self.bytes, &mut at) as u32
            };
            f(field, tf);
        }
    }

    /// The frequencies of every field.
    #[inline]
    pub(in crate::index) fn to_array<const F: usize>(self) -> [u32; F] {
        let mut tf = [0; F];
        self.for_each(|f, t| tf[f] = t);
        tf
    }
}

/// Reads the posting at `*at` given the previous document, its frequencies left encoded:
/// (document, frequencies).
#[inline(always)]
pub(super) fn decode_lazy<'a>(bytes: &'a [u8], at: &mut usize, prev: DocId) -> (DocId, Freqs<'a>) {
    // The common posting: a one-byte gap and a one-byte header.
    if let Some(&[gap, header]) = bytes.get(*at..*at + 2) {
        if gap < 0x80 && header < 0x80 {
            *at += 2;
            let freqs = Freqs {
                mask: u64::from(header >> 1),
                ones: header & 1 == 1,
                bytes,
                at: *at,
            };
            if header & 1 == 0 {
                skip_freqs(bytes, at, u64::from(header));
            }
            return (prev + DocId::from(gap), freqs);
        }
    }
    let doc = prev + get_varint(bytes, at) as DocId;
    let header = get_varint(bytes, at);
    let freqs = Freqs {
        mask: header >> 1,
        ones: header & 1 == 1,
        bytes,
        at: *at,
    };
    skip_freqs(bytes, at, header);
    (doc, freqs)
}

/// Moves past the frequencies of a posting with header `header`.
#[inline(always)]
fn skip_freqs(bytes: &[u8], at: &mut usize, header: u64) {
    if header & 1 == 0 {
        // One varint per field in the mask (a bit loop: `count_ones` is no single instruction
        // on the baseline x86-64 target).
        let mut mask = header >> 1;
        while mask != 0 {
            mask &= mask - 1;
            while bytes[*at] >= 0x80 {
                *at += 1;
            }
            *at += 1;
        }
    }
}

/// Moves `*at` past the common postings (a one-byte gap and a one-byte header of frequencies
/// all 1) that end before `doc`, four at a time (eight bytes read as one word), and returns the
/// last document passed (`prev` if none).
#[inline(always)]
pub(super) fn skip_common_before(
    bytes: &[u8],
    at: &mut usize,
    mut prev: DocId,
    doc: DocId,
) -> DocId {
    // Per posting, little-endian: the gap byte's high bit clear; the header byte's high bit
    // clear and low bit set.
    const MASK: u64 = 0x8180_8180_8180_8180;
    const COMMON: u64 = 0x0100_0100_0100_0100;
    while let Some(word) = bytes.get(*at..*at + 8) {
        let word = u64::from_le_bytes(word.try_into().expect("eight bytes"));
        if word & MASK != COMMON {
            break;
        }
        // The four gaps (each below 128) summed into the top 16 bits.
        let sum =
            ((word & 0x00FF_00FF_00FF_00FF).wrapping_mul(0x0001_0001_0001_0001) >> 48) as DocId;
        if prev + sum >= doc {
            break;
        }
        prev += sum;
        *at += 8;
    }
    prev
}

/// Encodes one posting into `out` (a stack buffer), returning the bytes written.
pub(super) fn encode<const F: usize>(
    buf: &mut [u8; ENCODED_MAX],
    gap: DocId,
    tf: &[u32; F],
) -> usize {
    let mut out = Writer { buf, len: 0 };
    let out = &mut out;
    put_varint(out, u64::from(gap));
    let mut mask = 0u64;
    let mut ones = true;
    for (f, &t) in tf.iter().enumerate() {
        if t > 0 {
            mask |= 1 << f;
            ones &= t == 1;
        }
    }
    put_varint(out, (mask << 1) | u64::from(ones));
    if !ones {
        for &t in tf {
            if t > 0 {
                put_varint(out, u64::from(t));
            }
        }
    }
    out.len
}

/// Longest encoded posting: a 5-byte gap, a header of up to 10 bytes, 5 bytes per frequency
/// (the index takes at most 20 fields).
pub(super) const ENCODED_MAX: usize = 128;

struct Writer<'a> {
    buf: &'a mut [u8; ENCODED_MAX],
    len: usize,
}

impl Writer<'_> {
    #[inline]
    fn push(&mut self, b: u8) {
        self.buf[self.len] = b;
        self.len += 1;
    }
}
