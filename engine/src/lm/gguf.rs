//! The GGUF file format as llama.cpp reads it (ggml's docs/gguf.md, gguf.cpp): a header, typed
//! metadata, the tensors' descriptions, and their data at an aligned offset. Every read is bounds
//! checked, so a bad file gets a message naming what is wrong and where, never a panic.

use std::collections::BTreeMap;

use crate::lm::quants::TensorType;

/// "GGUF", the first four bytes of every file.
const MAGIC: &[u8; 4] = b"GGUF";
/// Where tensor data starts when `general.alignment` does not say.
const DEFAULT_ALIGNMENT: u64 = 32;
/// How much of a model file is read to look at it before it is kept ([`Gguf::parse_start`]): a
/// Qwen2.5 model's header holds 151,936 tokens and about as many merges, a few MB.
pub const HEADER_READ_BYTES: u64 = 64 << 20;

/// A metadata value, typed as the file types it.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    U8(u8),
    I8(i8),
    U16(u16),
    I16(i16),
    U32(u32),
    I32(i32),
    F32(f32),
    Bool(bool),
    String(String),
    Array(Vec<Value>),
    U64(u64),
    I64(i64),
    F64(f64),
}

impl Value {
    /// An integer of any width, as llama.cpp reads counts and ids.
    pub fn as_u64(&self) -> Option<u64> {
        match *self {
            Value::U8(v) => Some(v.into()),
            Value::U16(v) => Some(v.into()),
            Value::U32(v) => Some(v.into()),
            Value::U64(v) => Some(v),
            Value::I8(v) => u64::try_from(v).ok(),
            Value::I16(v) => u64::try_from(v).ok(),
            Value::I32(v) => u64::try_from(v).ok(),
            Value::I64(v) => u64::try_from(v).ok(),
            _ => None,
        }
    }

    pub fn as_f32(&self) -> Option<f32> {
        match *self {
            Value::F32(v) => Some(v),
            Value::F64(v) => Some(v as f32),
            _ => None,
        }
    }
}

/// One tensor's description.
#[derive(Clone, Debug, PartialEq)]
pub struct TensorInfo {
    pub name: String,
    /// ggml's `ne`: the row length first.
    pub dims: Vec<u64>,
    pub kind: TensorType,
    /// From the start of the tensor data.
    pub offset: u64,
}

impl TensorInfo {
    pub fn count(&self) -> u64 {
        self.dims.iter().product()
    }

    /// Its shape outermost first, as burn orders dimensions (`[rows, row length]` for a matrix).
    pub fn shape(&self) -> Vec<usize> {
        self.dims.iter().rev().map(|&d| d as usize).collect()
    }
}

/// A GGUF file's header, metadata and tensor table; its tensors are read from the same bytes.
#[derive(Clone, Debug)]
pub struct Gguf {
    pub version: u32,
    pub metadata: BTreeMap<String, Value>,
    pub tensors: Vec<TensorInfo>,
    /// Where tensor data starts in the file.
    pub data_start: u64,
}

impl Gguf {
    /// Reads the header, metadata and tensor table of `bytes`, and checks that every tensor lies
    /// inside them.
    pub fn parse(bytes: &[u8]) -> Result<Self, String> {
        Self::parse_start(bytes, bytes.len() as u64)
    }

    /// [`Gguf::parse`] from `start`, the first bytes of a file of `file_len` bytes (at most
    /// [`HEADER_READ_BYTES`] of it): how a model is looked at before it is kept, without reading
    /// its gigabytes. A header longer than `start` is named as such, not as a truncated file.
    pub fn parse_start(start: &[u8], file_len: u64) -> Result<Self, String> {
        let gguf = Self::read_header(start).map_err(|problem| match start.len() as u64 {
            read if read < file_len && problem.starts_with("truncated") => {
                format!("its header is longer than the first {read} bytes, the most read to check a model")
            }
            _ => problem,
        })?;
        for tensor in &gguf.tensors {
            let (start, end) = gguf.span(tensor)?;
            if end > file_len {
                return Err(format!(
                    "truncated: tensor '{}' lies at bytes {start}..{end}, but the file has {file_len} bytes",
                    tensor.name
                ));
            }
        }
        Ok(gguf)
    }

    /// The header, metadata and tensor table at the start of `bytes`.
    fn read_header(bytes: &[u8]) -> Result<Self, String> {
        let mut reader = Reader { bytes, at: 0 };
        if bytes.is_empty() {
            return Err("the file is empty".into());
        }
        if bytes.len() < 4 || &bytes[..4] != MAGIC {
            return Err(format!(
                "not a GGUF file: it starts with {:?}, not \"GGUF\"",
                String::from_utf8_lossy(&bytes[..bytes.len().min(4)])
            ));
        }
        reader.at = 4;
        let version = reader.u32("the version")?;
        if !(2..=3).contains(&version) {
            return Err(format!("GGUF version {version} is not supported (2 and 3 are)"));
        }
        let tensor_count = reader.u64("the tensor count")?;
        let metadata_count = reader.u64("the metadata count")?;
        let mut metadata = BTreeMap::new();
        for index in 0..metadata_count {
            let key = reader.string(&format!("metadata key {index}"))?;
            let kind = reader.u32(&format!("the type of metadata '{key}'"))?;
            let value = reader.value(kind, &key)?;
            metadata.insert(key, value);
        }
        let mut tensors = Vec::new();
        for index in 0..tensor_count {
            let name = reader.string(&format!("tensor {index}'s name"))?;
            let rank = reader.u32(&format!("tensor '{name}''s rank"))?;
            if !(1..=4).contains(&rank) {
                return Err(format!("tensor '{name}' has {rank} dimensions (ggml has 1 to 4)"));
            }
            let dims =
                (0..rank).map(|_| reader.u64(&format!("tensor '{name}''s shape"))).collect::<Result<Vec<_>, _>>()?;
            let kind = TensorType::from_id(reader.u32(&format!("tensor '{name}''s type"))?)
                .map_err(|e| format!("tensor '{name}': {e}"))?;
            let offset = reader.u64(&format!("tensor '{name}''s offset"))?;
            tensors.push(TensorInfo { name, dims, kind, offset });
        }
        let alignment = metadata.get("general.alignment").and_then(Value::as_u64).unwrap_or(DEFAULT_ALIGNMENT).max(1);
        let data_start = (reader.at as u64).div_ceil(alignment) * alignment;
        Ok(Self { version, metadata, tensors, data_start })
    }

    /// What a person choosing the file is told: its architecture, tensors and parameters; the error
    /// names a file that no language model could load from (no architecture, no tensors).
    pub fn describe(&self) -> Result<String, String> {
        let architecture = self.string("general.architecture")?;
        if self.tensors.is_empty() {
            return Err("the file has no tensors".into());
        }
        let parameters: u64 = self.tensors.iter().map(TensorInfo::count).sum();
        let name = self.get("general.name").and_then(|v| match v {
            Value::String(name) => Some(format!("{name}: ")),
            _ => None,
        });
        Ok(format!(
            "{}{architecture}, {} tensors, {:.1} M parameters",
            name.unwrap_or_default(),
            self.tensors.len(),
            parameters as f64 / 1e6
        ))
    }

    /// The bytes tensor `tensor` occupies in the file.
    fn span(&self, tensor: &TensorInfo) -> Result<(u64, u64), String> {
        let row = tensor.dims[0] as usize;
        let size =
            tensor.kind.bytes(row, tensor.count() as usize).map_err(|e| format!("tensor '{}': {e}", tensor.name))?;
        let start = self.data_start + tensor.offset;
        Ok((start, start + size as u64))
    }

    pub fn tensor(&self, name: &str) -> Option<&TensorInfo> {
        self.tensors.iter().find(|t| t.name == name)
    }

    /// Tensor `name` of `bytes` (the file `parse` read) as f32 weights, with its shape.
    pub fn read_f32(&self, bytes: &[u8], name: &str) -> Result<(Vec<usize>, Vec<f32>), String> {
        let tensor = self.tensor(name).ok_or_else(|| format!("the file has no tensor '{name}'"))?;
        let (start, end) = self.span(tensor)?;
        Ok((tensor.shape(), tensor.kind.dequantise(&bytes[start as usize..end as usize])))
    }

    pub fn get(&self, key: &str) -> Option<&Value> {
        self.metadata.get(key)
    }

    /// Metadata `key` as a string, or a message naming it.
    pub fn string(&self, key: &str) -> Result<&str, String> {
        match self.get(key) {
            Some(Value::String(s)) => Ok(s),
            Some(_) => Err(format!("metadata '{key}' is not a string")),
            None => Err(format!("the file has no metadata '{key}'")),
        }
    }

    /// Metadata `key` as an unsigned integer, or a message naming it.
    pub fn integer(&self, key: &str) -> Result<u64, String> {
        let value = self.get(key).ok_or_else(|| format!("the file has no metadata '{key}'"))?;
        value.as_u64().ok_or_else(|| format!("metadata '{key}' is not a non-negative integer"))
    }

    /// Metadata `key` as an array of strings.
    pub fn strings(&self, key: &str) -> Result<Vec<&str>, String> {
        match self.get(key) {
            Some(Value::Array(items)) => items
                .iter()
                .map(|item| match item {
                    Value::String(s) => Ok(s.as_str()),
                    _ => Err(format!("metadata '{key}' holds a value that is not a string")),
                })
                .collect(),
            Some(_) => Err(format!("metadata '{key}' is not an array")),
            None => Err(format!("the file has no metadata '{key}'")),
        }
    }
}

/// A bounds-checked cursor over the file.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize, what: &str) -> Result<&[u8], String> {
        let end = self.at.checked_add(n).filter(|&end| end <= self.bytes.len()).ok_or_else(|| {
            format!("truncated: the file ends at byte {} inside {what} (byte {})", self.bytes.len(), self.at)
        })?;
        let slice = &self.bytes[self.at..end];
        self.at = end;
        Ok(slice)
    }

    fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N], String> {
        Ok(self.take(N, what)?.try_into().expect("take returns N bytes"))
    }

    fn u32(&mut self, what: &str) -> Result<u32, String> {
        Ok(u32::from_le_bytes(self.array(what)?))
    }

    fn u64(&mut self, what: &str) -> Result<u64, String> {
        Ok(u64::from_le_bytes(self.array(what)?))
    }

    fn string(&mut self, what: &str) -> Result<String, String> {
        let length = self.u64(what)?;
        let length = usize::try_from(length).map_err(|_| format!("{what} claims {length} bytes"))?;
        let bytes = self.take(length, what)?;
        String::from_utf8(bytes.to_vec()).map_err(|_| format!("{what} is not UTF-8"))
    }

    fn value(&mut self, kind: u32, key: &str) -> Result<Value, String> {
        let what = &format!("metadata '{key}'");
        Ok(match kind {
            0 => Value::U8(self.array::<1>(what)?[0]),
            1 => Value::I8(self.array::<1>(what)?[0] as i8),
            2 => Value::U16(u16::from_le_bytes(self.array(what)?)),
            3 => Value::I16(i16::from_le_bytes(self.array(what)?)),
            4 => Value::U32(self.u32(what)?),
            5 => Value::I32(i32::from_le_bytes(self.array(what)?)),
            6 => Value::F32(f32::from_le_bytes(self.array(what)?)),
            7 => Value::Bool(self.array::<1>(what)?[0] != 0),
            8 => Value::String(self.string(what)?),
            9 => {
                let item_kind = self.u32(what)?;
                if item_kind == 9 {
                    return Err(format!("{what} is an array of arrays, which llama.cpp does not read"));
                }
                let count = self.u64(what)?;
                // Each item takes at least a byte: a count past the file's end is a bad file, not an
                // allocation to attempt.
                if count > (self.bytes.len() - self.at) as u64 {
                    return Err(format!("truncated: {what} claims {count} items past the file's end"));
                }
                let items = (0..count).map(|_| self.value(item_kind, key)).collect::<Result<Vec<_>, _>>()?;
                Value::Array(items)
            }
            10 => Value::U64(self.u64(what)?),
            11 => Value::I64(i64::from_le_bytes(self.array(what)?)),
            12 => Value::F64(f64::from_le_bytes(self.array(what)?)),
            other => return Err(format!("{what} has an unknown type {other}")),
        })
    }
}
