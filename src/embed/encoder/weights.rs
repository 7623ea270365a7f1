//! Reading a `model.safetensors` file: an 8-byte little-endian header length, a JSON header
//! naming each tensor's dtype, shape and byte range, then the raw little-endian data.
//!
//! The file is untrusted input: every length, offset and shape is checked against the file
//! before a byte is read, and a bad file is an error that names what is wrong.

use crate::error::{Error, Result};
use std::collections::HashMap;

/// The tensors of one file, as f32 (F16 and BF16 are widened on load).
#[derive(Debug)]
pub(crate) struct Tensors {
    tensors: HashMap<String, (Vec<usize>, Vec<f32>)>,
    /// Prefix every name carries in this file (`bert.` in some exports), found on load.
    prefix: String,
}

/// Where a layer's weights are, under `encoder.layer.N.`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LayerNames {
    pub query: &'static str,
    pub key: &'static str,
    pub value: &'static str,
    pub attn_out: &'static str,
    pub attn_norm: &'static str,
    pub up: &'static str,
    pub down: &'static str,
    pub out_norm: &'static str,
}

/// Largest header accepted (the real ones are tens of KB).
const MAX_HEADER: u64 = 64 << 20;

impl Tensors {
    /// Parses the file's bytes.
    pub(crate) fn parse(bytes: &[u8], path: &str) -> Result<Self> {
        let bad = |what: String| Error::invalid(format!("{path}: not a safetensors file: {what}"));
        if bytes.len() < 8 {
            return Err(bad("shorter than its 8-byte header length".into()));
        }
        let n = u64::from_le_bytes(bytes[..8].try_into().expect("8 bytes"));
        if n > MAX_HEADER || n > (bytes.len() - 8) as u64 {
            return Err(bad(format!("header length {n} past the end of the file")));
        }
        let header: serde_json::Value = serde_json::from_slice(&bytes[8..8 + n as usize])
            .map_err(|e| bad(format!("header is not JSON ({e})")))?;
        let header = header
            .as_object()
            .ok_or_else(|| bad("header is not a JSON object".into()))?;
        let data = &bytes[8 + n as usize..];
        let mut tensors = HashMap::new();
        for (name, info) in header {
            if name == "__metadata__" {
                continue;
            }
            let dtype = info.get("dtype").and_then(|v| v.as_str()).unwrap_or("");
            let width = match dtype {
                "F32" => 4,
                "F16" | "BF16" => 2,
                // Integer tensors (position ids) are not weights.
                "I64" | "I32" | "I16" | "I8" | "U8" | "BOOL" => continue,
                other => return Err(bad(format!("{name}: unsupported dtype {other:?}"))),
            };
            let shape: Vec<usize> = info
                .get("shape")
                .and_then(|v| v.as_array())
                .ok_or_else(|| bad(format!("{name}: no shape")))?
                .iter()
                .map(|d| d.as_u64().map(|d| d as usize))
                .collect::<Option<_>>()
                .ok_or_else(|| bad(format!("{name}: shape is not a list of sizes")))?;
            let offsets = info
                .get("data_offsets")
                .and_then(|v| v.as_array())
                .filter(|a| a.len() == 2)
                .and_then(|a| Some((a[0].as_u64()? as usize, a[1].as_u64()? as usize)))
                .ok_or_else(|| bad(format!("{name}: no data_offsets")))?;
            let count = shape
                .iter()
                .try_fold(1usize, |acc, &d| acc.checked_mul(d))
                .ok_or_else(|| bad(format!("{name}: shape overflows")))?;
            let (start, end) = offsets;
            if start > end || end > data.len() || end - start != count.saturating_mul(width) {
                return Err(bad(format!(
                    "{name}: data_offsets {start}..{end} do not fit shape {shape:?} of {dtype} in {} bytes",
                    data.len()
                )));
            }
            let raw = &data[start..end];
            let values: Vec<f32> = match dtype {
                "F32" => raw
                    .chunks_exact(4)
                    .map(|b| f32::from_le_bytes(b.try_into().expect("4 bytes")))
                    .collect(),
                "F16" => raw
                    .chunks_exact(2)
                    .map(|b| f16_to_f32(u16::from_le_bytes([b[0], b[1]])))
                    .collect(),
                _ => raw
                    .chunks_exact(2)
                    .map(|b| f32::from_bits((u16::from_le_bytes([b[0], b[1]]) as u32) << 16))
                    .collect(),
            };
            if values.iter().any(|v| !v.is_finite()) {
                return Err(bad(format!("{name}: holds a NaN or an infinity")));
            }
            tensors.insert(name.clone(), (shape, values));
        }
        let prefix = ["", "bert.", "mpnet.", "model."]
            .into_iter()
            .find(|p| tensors.contains_key(&format!("{p}embeddings.word_embeddings.weight")))
            .ok_or_else(|| bad("no embeddings.word_embeddings.weight: not a BERT model".into()))?
            .to_string();
        Ok(Tensors { tensors, prefix })
    }

    /// Takes the tensor `name` (without the file's prefix), checking its shape.
    pub(crate) fn take(&mut self, name: &str, shape: &[usize]) -> Result<Vec<f32>> {
        let full = format!("{}{name}", self.prefix);
        let (have, values) = self
            .tensors
            .remove(&full)
            .ok_or_else(|| Error::invalid(format!("model.safetensors: no tensor {full}")))?;
        if have != shape {
            return Err(Error::invalid(format!(
                "model.safetensors: {full} has shape {have:?}, the config says {shape:?}"
            )));
        }
        Ok(values)
    }
}

/// IEEE half to single precision.
fn f16_to_f32(h: u16) -> f32 {
    let sign = ((h >> 15) as u32) << 31;
    let exp = ((h >> 10) & 0x1f) as u32;
    let frac = (h & 0x3ff) as u32;
    let bits = match (exp, frac) {
        (0, 0) => sign,
        (0, f) => {
            // Subnormal: value is f * 2^-24.
            let v = f as f32 * (1.0 / 16_777_216.0);
            return if sign != 0 { -v } else { v };
        }
        (0x1f, 0) => sign | 0x7f80_0000,
        (0x1f, f) => sign | 0x7f80_0000 | (f << 13),
        (e, f) => sign | ((e + 112) << 23) | (f << 13),
    };
    f32::from_bits(bits)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(header: &str, data: &[u8]) -> Vec<u8> {
        let mut out = (header.len() as u64).to_le_bytes().to_vec();
        out.extend_from_slice(header.as_bytes());
        out.extend_from_slice(data);
        out
    }

    #[test]
    fn reads_f32_f16_and_bf16() {
        let mut data = Vec::new();
        data.extend_from_slice(&1.5f32.to_le_bytes());
        data.extend_from_slice(&0x3c00u16.to_le_bytes()); // 1.0 in f16
        data.extend_from_slice(&0x4000u16.to_le_bytes()); // 2.0 in bf16
        let h = r#"{"embeddings.word_embeddings.weight":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"h":{"dtype":"F16","shape":[1],"data_offsets":[4,6]},"b":{"dtype":"BF16","shape":[1],"data_offsets":[6,8]}}"#;
        let mut t = Tensors::parse(&file(h, &data), "m").unwrap();
        assert_eq!(t.take("h", &[1]).unwrap(), vec![1.0]);
        assert_eq!(t.take("b", &[1]).unwrap(), vec![2.0]);
        assert_eq!(
            t.take("embeddings.word_embeddings.weight", &[1]).unwrap(),
            vec![1.5]
        );
        assert!(t.take("h", &[1]).is_err(), "taken once");
    }

    #[test]
    fn refuses_bad_files() {
        let cases: Vec<Vec<u8>> = vec![
            vec![1, 2, 3],
            (u64::MAX).to_le_bytes().to_vec(),
            file("not json", &[]),
            file(
                r#"{"embeddings.word_embeddings.weight":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}}"#,
                &[0; 4],
            ),
            file(
                r#"{"embeddings.word_embeddings.weight":{"dtype":"F32","shape":[1],"data_offsets":[0,8]}}"#,
                &[0; 4],
            ),
            file(
                r#"{"x":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}"#,
                &[0; 4],
            ),
            file(
                r#"{"embeddings.word_embeddings.weight":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}"#,
                &f32::NAN.to_le_bytes(),
            ),
        ];
        for (i, bytes) in cases.iter().enumerate() {
            let err = Tensors::parse(bytes, "m").expect_err(&format!("case {i}"));
            assert!(err.to_string().contains("not a safetensors file"), "{err}");
        }
    }

    #[test]
    fn checks_shapes() {
        let h = r#"{"embeddings.word_embeddings.weight":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}"#;
        let mut t = Tensors::parse(&file(h, &[0; 4]), "m").unwrap();
        let err = t
            .take("embeddings.word_embeddings.weight", &[2])
            .unwrap_err();
        assert!(err.to_string().contains("shape"), "{err}");
    }
}
