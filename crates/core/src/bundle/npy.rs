//! Reading and writing `.npz` archives of `.npy` arrays.
//!
//! The release's array names and dtypes are unseen, so the loader must look at every array's
//! header (name, dtype, shape) *before* decoding anything, to pick the query and corpus matrices
//! by shape. The header is parsed here; float32/float64 payloads are decoded by `ndarray-npy`,
//! float16 (which `ndarray-npy` does not support) and unicode id arrays by hand.

use half::f16;
use ndarray::Array2;
use ndarray_npy::WriteNpyExt;
use std::borrow::Cow;
use std::io::{Cursor, Read, Write};
use std::path::Path;
use zip::write::SimpleFileOptions;

use super::error::BundleError;

/// Element type of an array, as far as execscope cares.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Dtype {
    /// Float of 2, 4 or 8 bytes; `big` when stored big-endian.
    Float { bytes: usize, big: bool },
    /// numpy `U<n>`: n UTF-32 code units per element.
    Unicode { chars: usize, big: bool },
    /// Anything else (`descr` kept for the message).
    Other(String),
}

/// The parsed header of one `.npy` member.
#[derive(Clone, Debug)]
pub struct NpyHeader {
    pub name: String,
    pub dtype: Dtype,
    pub fortran_order: bool,
    pub shape: Vec<usize>,
    pub descr: String,
}

/// Matrix buffers of systems already scored, for the next systems' matrices: a cold open decodes
/// 658 MB of matrices at the release's size, and faulting in fresh pages for them (each zeroed by
/// the kernel) was half of its page faults and 6 % of its CPU time (an AVX-512 machine).
/// Filled by [`recycle`], emptied by [`release`].
static SPARE: std::sync::Mutex<Vec<Vec<f32>>> = std::sync::Mutex::new(Vec::new());

/// Most buffers kept in [`SPARE`]: two systems' queries and corpus.
const SPARE_MAX: usize = 4;

/// An empty buffer with room for `len` floats: the smallest spare one that fits without holding
/// more than twice that, else a new one. Spares too small for it are freed first, so that kept
/// buffers never add to the memory of a larger system being read (a cold report's peak is two of
/// the largest systems at once).
fn reuse(len: usize) -> Vec<f32> {
    let mut spare = SPARE.lock().unwrap_or_else(|e| e.into_inner());
    let fit = (0..spare.len())
        .filter(|&i| (len..=len.saturating_mul(2)).contains(&spare[i].capacity()))
        .min_by_key(|&i| spare[i].capacity());
    if let Some(i) = fit {
        let mut v = spare.swap_remove(i);
        v.clear();
        return v;
    }
    spare.retain(|v| v.capacity() >= len);
    drop(spare);
    Vec::with_capacity(len)
}

/// Keep a matrix's buffer for the next [`Npz::matrix`] (the smallest spare one is dropped when
/// more than `SPARE_MAX` are kept). For a caller done with a decoded matrix while more are read.
pub fn recycle(m: Array2<f32>) {
    let (v, _) = m.into_raw_vec_and_offset();
    if v.capacity() == 0 {
        return;
    }
    let mut spare = SPARE.lock().unwrap_or_else(|e| e.into_inner());
    spare.push(v);
    if spare.len() > SPARE_MAX {
        let smallest = (0..spare.len()).min_by_key(|&i| spare[i].capacity());
        if let Some(i) = smallest {
            spare.swap_remove(i);
        }
    }
}

/// Free every spare buffer (once no more matrices are to be read).
pub fn release() {
    SPARE.lock().unwrap_or_else(|e| e.into_inner()).clear();
}

/// Parse the header of a `.npy` byte stream; returns it and the payload offset.
pub fn parse_header(name: &str, bytes: &[u8]) -> Result<(NpyHeader, usize), String> {
    if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
        return Err(format!("member `{name}` is not a .npy array (bad magic)"));
    }
    let major = bytes[6];
    let (len, start) = match major {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10usize),
        2 | 3 => {
            if bytes.len() < 12 {
                return Err(format!("member `{name}`: truncated .npy header"));
            }
            (
                u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize,
                12,
            )
        }
        v => return Err(format!("member `{name}`: unsupported .npy version {v}")),
    };
    let end = usize::saturating_add(start, len);
    let text = bytes
        .get(start..end)
        .ok_or_else(|| format!("member `{name}`: truncated .npy header"))?;
    let text =
        std::str::from_utf8(text).map_err(|_| format!("member `{name}`: header not text"))?;
    let descr = dict_value(text, "descr")
        .and_then(|v| v.strip_prefix('\'').and_then(|v| v.split('\'').next()))
        .ok_or_else(|| format!("member `{name}`: header has no 'descr': {text}"))?
        .to_string();
    let fortran_order = dict_value(text, "fortran_order")
        .map(|v| v.starts_with("True"))
        .unwrap_or(false);
    let shape_text = dict_value(text, "shape")
        .and_then(|v| v.strip_prefix('('))
        .and_then(|v| v.split(')').next())
        .ok_or_else(|| format!("member `{name}`: header has no 'shape': {text}"))?;
    let mut shape = Vec::new();
    for part in shape_text
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
    {
        let part = part.trim_end_matches('L');
        shape.push(
            part.parse::<usize>()
                .map_err(|_| format!("member `{name}`: bad shape {shape_text:?}"))?,
        );
    }
    let dtype = parse_descr(&descr);
    Ok((
        NpyHeader {
            name: name.to_string(),
            dtype,
            fortran_order,
            shape,
            descr,
        },
        end,
    ))
}

/// The text after `'key':` in a Python dict literal.
fn dict_value<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    let pat = format!("'{key}'");
    let at = text.find(&pat)? + pat.len();
    let rest = text[at..].trim_start().strip_prefix(':')?;
    Some(rest.trim_start())
}

fn parse_descr(descr: &str) -> Dtype {
    let (big, rest) = match descr.chars().next() {
        Some('<') | Some('=') | Some('|') => (false, &descr[1..]),
        Some('>') => (true, &descr[1..]),
        _ => (false, descr),
    };
    // The kind is the first character, whatever its width (a header is untrusted text).
    let mut chars = rest.chars();
    let kind = chars.next();
    match (kind, chars.as_str().parse::<usize>()) {
        (Some('f'), Ok(b @ (2 | 4 | 8))) => Dtype::Float { bytes: b, big },
        (Some('U'), Ok(n)) => Dtype::Unicode { chars: n, big },
        _ => Dtype::Other(descr.to_string()),
    }
}

/// An opened npz archive (held in memory: the bytes were read once, for hashing too).
pub struct Npz<'a> {
    path: &'a Path,
    bytes: &'a [u8],
    archive: zip::ZipArchive<Cursor<&'a [u8]>>,
}

impl<'a> Npz<'a> {
    pub fn open(path: &'a Path, bytes: &'a [u8]) -> Result<Self, BundleError> {
        let archive =
            zip::ZipArchive::new(Cursor::new(bytes)).map_err(|e| {
                match unsupported_method(bytes) {
                    Some((name, method)) => BundleError::BadArchive {
                        path: path.to_path_buf(),
                        detail: format!(
                            "member `{name}` is compressed with zip method {method} ({}), which \
                         execscope does not read; only stored (0) and deflate (8) are supported \
                         (numpy's savez and savez_compressed write those)",
                            method_name(method)
                        ),
                    },
                    None => BundleError::BadArchive {
                        path: path.to_path_buf(),
                        detail: format!("not a readable zip/npz ({e}); the file may be cut off"),
                    },
                }
            })?;
        Ok(Npz {
            path,
            bytes,
            archive,
        })
    }

    /// The bytes of member `index` (at most `limit` of them). A stored member is the archive's
    /// own bytes (no copy), its CRC-32 checked when it is read whole; a deflated one is inflated.
    fn member(
        &mut self,
        index: usize,
        limit: Option<u64>,
    ) -> Result<(String, Cow<'a, [u8]>), BundleError> {
        let bad = |detail: String| BundleError::BadArchive {
            path: self.path.to_path_buf(),
            detail,
        };
        let unsupported = |bytes: &[u8], e: zip::result::ZipError| match unsupported_method(bytes) {
            Some((name, method)) => format!(
                "member `{name}` is compressed with zip method {method} ({}), which \
                 execscope does not read; only stored (0) and deflate (8) are supported",
                method_name(method)
            ),
            None => format!("member {index}: {e}"),
        };
        let stored = {
            let raw = self
                .archive
                .by_index_raw(index)
                .map_err(|e| bad(unsupported(self.bytes, e)))?;
            let name = raw.name().trim_end_matches(".npy").to_string();
            (raw.compression() == zip::CompressionMethod::Stored && !raw.encrypted()).then(|| {
                (
                    name,
                    raw.data_start(),
                    raw.compressed_size(),
                    raw.size(),
                    raw.crc32(),
                )
            })
        };
        if let Some((name, start, csize, size, crc)) = stored {
            let whole = (usize::try_from(start).ok())
                .zip(usize::try_from(csize).ok())
                .filter(|_| csize == size)
                .and_then(|(a, n)| self.bytes.get(a..a.checked_add(n)?))
                .ok_or_else(|| {
                    bad(format!(
                        "member `{name}`: its {size} bytes run past the end of the file (truncated)"
                    ))
                })?;
            return Ok(match limit {
                Some(n) => (name, Cow::Borrowed(&whole[..whole.len().min(n as usize)])),
                None if crc32fast::hash(whole) != crc => {
                    return Err(bad(format!("member `{name}`: CRC-32 mismatch (damaged)")));
                }
                None => (name, Cow::Borrowed(whole)),
            });
        }
        let bytes = self.bytes;
        let mut file = self
            .archive
            .by_index(index)
            .map_err(|e| bad(unsupported(bytes, e)))?;
        let name = file.name().trim_end_matches(".npy").to_string();
        // The size is the archive's claim, not a promise: cap the up-front allocation.
        let mut buf = Vec::with_capacity(limit.unwrap_or(file.size()).min(1 << 28) as usize);
        let res = match limit {
            Some(n) => file.by_ref().take(n).read_to_end(&mut buf),
            None => file.read_to_end(&mut buf),
        };
        res.map_err(|e| bad(format!("member `{name}`: {e}")))?;
        Ok((name, Cow::Owned(buf)))
    }

    /// Headers of every member, in archive order.
    pub fn headers(&mut self) -> Result<Vec<NpyHeader>, BundleError> {
        let mut out = Vec::new();
        for i in 0..self.archive.len() {
            let (name, mut buf) = self.member(i, Some(4096))?;
            if buf.len() == 4096 && parse_header(&name, &buf).is_err() {
                // A header longer than 4 KiB (many fields): read the whole member.
                buf = self.member(i, None)?.1;
            }
            let (h, _) = parse_header(&name, &buf).map_err(|d| BundleError::npz(self.path, d))?;
            out.push(h);
        }
        Ok(out)
    }

    fn index_of(&self, name: &str) -> Option<usize> {
        (0..self.archive.len()).find(|&i| {
            self.archive
                .name_for_index(i)
                .map(|n| n.trim_end_matches(".npy") == name)
                .unwrap_or(false)
        })
    }

    /// Decode a 2-D float array of any supported width into f32.
    pub fn matrix(&mut self, name: &str) -> Result<Array2<f32>, BundleError> {
        let idx = self
            .index_of(name)
            .ok_or_else(|| BundleError::npz(self.path, format!("no array `{name}`")))?;
        let (_, bytes) = self.member(idx, None)?;
        let (h, offset) = parse_header(name, &bytes).map_err(|d| BundleError::npz(self.path, d))?;
        let path = self.path;
        if h.shape.len() != 2 {
            return Err(BundleError::npz(
                path,
                format!("array `{name}` has shape {:?}, expected 2-D", h.shape),
            ));
        }
        let (rows, cols) = (h.shape[0], h.shape[1]);
        let Dtype::Float { bytes: width, big } = h.dtype else {
            return Err(BundleError::npz(
                path,
                format!(
                    "array `{name}` has dtype {}, expected float16/32/64",
                    h.descr
                ),
            ));
        };
        let need = rows
            .checked_mul(cols)
            .and_then(|x| x.checked_mul(width))
            .unwrap_or(usize::MAX);
        if bytes.len().saturating_sub(offset) < need {
            return Err(BundleError::BadArchive {
                path: path.to_path_buf(),
                detail: format!(
                    "array `{name}` holds {} payload bytes, its shape needs {need} (truncated)",
                    bytes.len() - offset
                ),
            });
        }
        // One pass from the archive's bytes into the matrix's buffer, whatever the width.
        let payload = &bytes[offset..offset + need];
        let data: Vec<f32> = match (width, big) {
            (4, false) if cfg!(target_endian = "little") => {
                let mut v = reuse(need / 4);
                // SAFETY: the buffer (empty, new or spare) has room for need / 4 f32s
                // (`reuse`), which are exactly the `need` payload bytes in memory order (any bit
                // pattern is an f32); then they are set.
                unsafe {
                    std::ptr::copy_nonoverlapping(
                        payload.as_ptr(),
                        v.as_mut_ptr().cast::<u8>(),
                        need,
                    );
                    v.set_len(need / 4);
                }
                v
            }
            (4, false) => payload
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect(),
            (4, true) => payload
                .chunks_exact(4)
                .map(|c| f32::from_be_bytes([c[0], c[1], c[2], c[3]]))
                .collect(),
            (8, _) => payload
                .chunks_exact(8)
                .map(|c| {
                    let b: [u8; 8] = c.try_into().expect("8 bytes");
                    (if big {
                        f64::from_be_bytes(b)
                    } else {
                        f64::from_le_bytes(b)
                    }) as f32
                })
                .collect(),
            _ => payload
                .chunks_exact(2)
                .map(|c| {
                    let bits = if big {
                        u16::from_be_bytes([c[0], c[1]])
                    } else {
                        u16::from_le_bytes([c[0], c[1]])
                    };
                    f16::from_bits(bits).to_f32()
                })
                .collect(),
        };
        let shape = if h.fortran_order {
            (cols, rows)
        } else {
            (rows, cols)
        };
        let a = Array2::from_shape_vec(shape, data)
            .map_err(|e| BundleError::npz(path, format!("array `{name}`: {e}")))?;
        Ok(if h.fortran_order {
            a.reversed_axes().as_standard_layout().into_owned()
        } else {
            a
        })
    }

    /// Decode a 1-D unicode array (numpy `U<n>`) into strings.
    pub fn strings(&mut self, name: &str) -> Result<Vec<String>, BundleError> {
        let idx = self
            .index_of(name)
            .ok_or_else(|| BundleError::npz(self.path, format!("no array `{name}`")))?;
        let (_, bytes) = self.member(idx, None)?;
        let (h, offset) = parse_header(name, &bytes).map_err(|d| BundleError::npz(self.path, d))?;
        let Dtype::Unicode { chars, big } = h.dtype else {
            return Err(BundleError::npz(
                self.path,
                format!(
                    "array `{name}` has dtype {}, expected a unicode (U) array",
                    h.descr
                ),
            ));
        };
        if h.shape.len() != 1 {
            return Err(BundleError::npz(
                self.path,
                format!("array `{name}` has shape {:?}, expected 1-D", h.shape),
            ));
        }
        let n = h.shape[0];
        let need = n
            .checked_mul(chars)
            .and_then(|x| x.checked_mul(4))
            .unwrap_or(usize::MAX);
        let payload = bytes
            .get(offset..offset.saturating_add(need))
            .ok_or_else(|| BundleError::BadArchive {
                path: self.path.to_path_buf(),
                detail: format!("array `{name}` is shorter than its shape (truncated)"),
            })?;
        let mut out = Vec::with_capacity(n);
        for item in payload.chunks_exact((chars * 4).max(1)).take(n) {
            let mut s = String::new();
            for c in item.chunks_exact(4) {
                let arr = [c[0], c[1], c[2], c[3]];
                let v = if big {
                    u32::from_be_bytes(arr)
                } else {
                    u32::from_le_bytes(arr)
                };
                if v == 0 {
                    break;
                }
                s.push(char::from_u32(v).unwrap_or('\u{fffd}'));
            }
            out.push(s);
        }
        if chars == 0 {
            out.resize(n, String::new());
        }
        Ok(out)
    }
}

/// The first central-directory (else local) entry whose compression method is neither stored
/// nor deflate, as (member name, method): the zip reader rejects such an archive with a message
/// about its end record, which would send the user looking for a truncation.
fn unsupported_method(bytes: &[u8]) -> Option<(String, u16)> {
    let u16_at = |i: usize| {
        bytes
            .get(i..i + 2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]))
    };
    for (sig, method_at, name_len_at, name_at) in
        [(b"PK\x01\x02", 10, 28, 46), (b"PK\x03\x04", 8, 26, 30)]
    {
        let mut i = 0;
        while let Some(off) = bytes.get(i..).and_then(|b| find(b, sig)) {
            let at = i + off;
            if let (Some(method), Some(len)) = (u16_at(at + method_at), u16_at(at + name_len_at)) {
                if method != 0 && method != 8 {
                    let name = bytes
                        .get(at + name_at..at + name_at + len as usize)
                        .map(|n| String::from_utf8_lossy(n).into_owned())
                        .unwrap_or_default();
                    return Some((name, method));
                }
            }
            i = at + 4;
        }
    }
    None
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

fn method_name(m: u16) -> &'static str {
    match m {
        12 => "bzip2",
        14 => "LZMA",
        93 => "zstd",
        95 => "xz",
        99 => "AES-encrypted",
        9 => "deflate64",
        _ => "unknown",
    }
}

/// A `.npy` header padded (numpy's rule) so the payload starts at a multiple of 64 bytes.
fn npy_header(descr: &str, shape: &[usize]) -> Vec<u8> {
    let shape_text = match shape {
        [n] => format!("({n},)"),
        _ => format!(
            "({})",
            shape
                .iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let mut dict =
        format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape_text}, }}");
    let total = 10 + dict.len() + 1;
    dict.push_str(&" ".repeat((64 - total % 64) % 64));
    dict.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(dict.len() as u16).to_le_bytes());
    out.extend_from_slice(dict.as_bytes());
    out
}

/// Encode strings as a numpy `<U<n>` array.
pub fn unicode_npy(items: &[String]) -> Vec<u8> {
    let chars = items
        .iter()
        .map(|s| s.chars().count())
        .max()
        .unwrap_or(0)
        .max(1);
    let mut out = npy_header(&format!("<U{chars}"), &[items.len()]);
    for s in items {
        let mut n = 0;
        for c in s.chars() {
            out.extend_from_slice(&(c as u32).to_le_bytes());
            n += 1;
        }
        out.extend(std::iter::repeat_n(0u8, (chars - n) * 4));
    }
    out
}

/// One array to put into an npz.
pub enum NpzItem<'a> {
    F32(&'a Array2<f32>),
    Strings(&'a [String]),
}

/// Write an uncompressed npz (what `numpy.savez` writes) to `out`.
pub fn write_npz<W: Write + std::io::Seek>(
    out: W,
    items: &[(&str, NpzItem<'_>)],
) -> Result<(), String> {
    let mut zip = zip::ZipWriter::new(out);
    let opts = SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Stored)
        .last_modified_time(zip::DateTime::default())
        .large_file(true);
    for (name, item) in items {
        zip.start_file(format!("{name}.npy"), opts)
            .map_err(|e| e.to_string())?;
        match item {
            NpzItem::F32(a) => a.write_npy(&mut zip).map_err(|e| e.to_string())?,
            NpzItem::Strings(s) => zip.write_all(&unicode_npy(s)).map_err(|e| e.to_string())?,
        }
    }
    let mut out = zip.finish().map_err(|e| e.to_string())?;
    out.flush().map_err(|e| e.to_string())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A matrix decoded into a spare buffer (one of exactly its size and one up to twice it,
    /// each holding NaN from the matrix it held before; one too small is never used) is the
    /// stored matrix, bit for bit.
    #[test]
    fn matrices_decoded_into_spare_buffers_are_exact() {
        let want = Array2::from_shape_fn((13, 7), |(i, j)| (i * 7 + j) as f32 * 0.25 - 3.0);
        let mut bytes = Cursor::new(Vec::new());
        write_npz(&mut bytes, &[("m", NpzItem::F32(&want))]).unwrap();
        let bytes = bytes.into_inner();
        let path = Path::new("spare.npz");
        for spare in [(13, 7), (20, 9), (3, 3), (7, 13)] {
            recycle(Array2::from_elem(spare, f32::NAN));
            let got = Npz::open(path, &bytes).unwrap().matrix("m").unwrap();
            assert_eq!(got.dim(), (13, 7));
            let bits = |m: &Array2<f32>| m.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&got), bits(&want), "after a spare of {spare:?}");
            recycle(got);
        }
        release();
    }

    /// A descr whose kind is a multi-byte character is another dtype, not a panic (the fuzz
    /// target `npz` found `´2`).
    #[test]
    fn descr_kinds_of_any_width() {
        assert_eq!(
            parse_descr("<f4"),
            Dtype::Float {
                bytes: 4,
                big: false
            }
        );
        assert_eq!(
            parse_descr(">U7"),
            Dtype::Unicode {
                chars: 7,
                big: true
            }
        );
        for odd in ["´2", "<´2", "é", "", "<", "f", "<f3"] {
            assert_eq!(parse_descr(odd), Dtype::Other(odd.to_string()), "{odd:?}");
        }
    }
}
