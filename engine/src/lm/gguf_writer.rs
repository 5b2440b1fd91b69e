//! A GGUF file written back (version 3, ggml's docs/gguf.md): the metadata as given, then tensors
//! in F32 or F16, each at an aligned offset, so that llama.cpp loads what the engine trained.

use std::collections::BTreeMap;

use half::f16;

use crate::lm::gguf::Value;
use crate::lm::quants::TensorType;

/// Tensor data starts at multiples of this, unless `general.alignment` says otherwise.
const ALIGNMENT: usize = 32;

/// One tensor to write: its shape outermost first (`[rows, row length]`), its values row-major.
pub struct TensorOut {
    pub name: String,
    pub shape: Vec<usize>,
    pub values: Vec<f32>,
    /// F32 or F16 (matrices are written in F16 when asked; vectors stay F32 as llama.cpp wants).
    pub kind: TensorType,
}

/// The bytes of a GGUF file holding `metadata` and `tensors`.
pub fn write(metadata: &BTreeMap<String, Value>, tensors: &[TensorOut]) -> Vec<u8> {
    let alignment = metadata.get("general.alignment").and_then(Value::as_u64).map_or(ALIGNMENT, |a| a.max(1) as usize);
    let mut out = Vec::new();
    out.extend_from_slice(b"GGUF");
    out.extend_from_slice(&3u32.to_le_bytes());
    out.extend_from_slice(&(tensors.len() as u64).to_le_bytes());
    out.extend_from_slice(&(metadata.len() as u64).to_le_bytes());
    for (key, value) in metadata {
        put_string(&mut out, key);
        out.extend_from_slice(&type_id(value).to_le_bytes());
        put_value(&mut out, value);
    }
    let mut data = Vec::new();
    for tensor in tensors {
        pad(&mut data, alignment);
        put_string(&mut out, &tensor.name);
        out.extend_from_slice(&(tensor.shape.len() as u32).to_le_bytes());
        for &dim in tensor.shape.iter().rev() {
            out.extend_from_slice(&(dim as u64).to_le_bytes());
        }
        out.extend_from_slice(&tensor.kind.id().to_le_bytes());
        out.extend_from_slice(&(data.len() as u64).to_le_bytes());
        match tensor.kind {
            TensorType::F16 => {
                tensor.values.iter().for_each(|&v| data.extend_from_slice(&f16::from_f32(v).to_le_bytes()))
            }
            _ => tensor.values.iter().for_each(|&v| data.extend_from_slice(&v.to_le_bytes())),
        }
    }
    pad(&mut out, alignment);
    out.extend_from_slice(&data);
    out
}

fn pad(bytes: &mut Vec<u8>, alignment: usize) {
    bytes.resize(bytes.len().div_ceil(alignment) * alignment, 0);
}

fn put_string(out: &mut Vec<u8>, text: &str) {
    out.extend_from_slice(&(text.len() as u64).to_le_bytes());
    out.extend_from_slice(text.as_bytes());
}

/// A value's GGUF type number (`enum gguf_type`).
fn type_id(value: &Value) -> u32 {
    match value {
        Value::U8(_) => 0,
        Value::I8(_) => 1,
        Value::U16(_) => 2,
        Value::I16(_) => 3,
        Value::U32(_) => 4,
        Value::I32(_) => 5,
        Value::F32(_) => 6,
        Value::Bool(_) => 7,
        Value::String(_) => 8,
        Value::Array(_) => 9,
        Value::U64(_) => 10,
        Value::I64(_) => 11,
        Value::F64(_) => 12,
    }
}

fn put_value(out: &mut Vec<u8>, value: &Value) {
    match value {
        Value::U8(v) => out.push(*v),
        Value::I8(v) => out.push(*v as u8),
        Value::U16(v) => out.extend_from_slice(&v.to_le_bytes()),
        Value::I16(v) => out.extend_from_slice(&v.to_le_bytes()),
        Value::U32(v) => out.extend_from_slice(&v.to_le_bytes()),
        Value::I32(v) => out.extend_from_slice(&v.to_le_bytes()),
        Value::F32(v) => out.extend_from_slice(&v.to_le_bytes()),
        Value::Bool(v) => out.push(u8::from(*v)),
        Value::String(v) => put_string(out, v),
        Value::Array(items) => {
            // An empty array's items are written as strings, as gguf-py does.
            let item_type = items.first().map_or(8, type_id);
            out.extend_from_slice(&item_type.to_le_bytes());
            out.extend_from_slice(&(items.len() as u64).to_le_bytes());
            items.iter().for_each(|item| put_value(out, item));
        }
        Value::U64(v) => out.extend_from_slice(&v.to_le_bytes()),
        Value::I64(v) => out.extend_from_slice(&v.to_le_bytes()),
        Value::F64(v) => out.extend_from_slice(&v.to_le_bytes()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lm::gguf::Gguf;

    #[test]
    fn what_is_written_reads_back() {
        let metadata = BTreeMap::from([
            ("general.architecture".to_owned(), Value::String("llama".into())),
            ("general.alignment".to_owned(), Value::U32(64)),
            (
                "tokenizer.ggml.tokens".to_owned(),
                Value::Array(vec![Value::String("a".into()), Value::String("b".into())]),
            ),
        ]);
        let tensors = vec![
            TensorOut { name: "v".into(), shape: vec![3], values: vec![1.0, -2.0, 0.5], kind: TensorType::F32 },
            TensorOut { name: "m".into(), shape: vec![2, 2], values: vec![1.0, 2.0, 3.0, 0.1], kind: TensorType::F16 },
        ];
        let bytes = write(&metadata, &tensors);
        let gguf = Gguf::parse(&bytes).unwrap();
        assert_eq!(gguf.metadata, metadata);
        assert_eq!(gguf.data_start % 64, 0);
        assert_eq!(gguf.read_f32(&bytes, "v").unwrap(), (vec![3], vec![1.0, -2.0, 0.5]));
        let (shape, values) = gguf.read_f32(&bytes, "m").unwrap();
        assert_eq!(shape, vec![2, 2]);
        assert_eq!(values, vec![1.0, 2.0, 3.0, f16::from_f32(0.1).to_f32()]);
        assert_eq!(gguf.tensor("m").unwrap().offset % 64, 0);
    }
}
