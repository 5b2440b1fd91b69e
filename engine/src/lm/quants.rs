//! ggml's tensor types as llama.cpp stores and multiplies them (ggml-common.h, ggml-quants.c):
//! their block layouts, dequantised to f32 when a model loads, and the rounding llama.cpp's CPU
//! backend applies to the activations a quantised matrix multiplies (its `vec_dot_type`), so that
//! the engine computes llama.cpp's numbers and not merely close ones.

use half::f16;

/// The weights a k-quant block holds.
const QK_K: usize = 256;
/// The weights a Q8_0 block holds.
const QK8_0: usize = 32;
/// The weights a Q5_0 block holds.
const QK5_0: usize = 32;

/// A tensor type of ggml (its `enum ggml_type`), as GGUF files number them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TensorType {
    F32,
    F16,
    /// What llama.cpp's Q4_K_M puts in place of Q4_K where a row is not a multiple of 256
    /// (Qwen2.5-0.5B's 896 wide rows, say).
    Q5_0,
    Q8_0,
    Q4K,
    Q6K,
}

impl TensorType {
    /// The type of ggml's number `id`, or its name when the engine cannot read it.
    pub fn from_id(id: u32) -> Result<Self, String> {
        Ok(match id {
            0 => Self::F32,
            1 => Self::F16,
            6 => Self::Q5_0,
            8 => Self::Q8_0,
            12 => Self::Q4K,
            14 => Self::Q6K,
            other => {
                return Err(format!(
                    "tensor type {} is not supported (supported: F32, F16, Q5_0, Q8_0, Q4_K, Q6_K)",
                    ggml_type_name(other)
                ));
            }
        })
    }

    pub fn id(self) -> u32 {
        match self {
            Self::F32 => 0,
            Self::F16 => 1,
            Self::Q5_0 => 6,
            Self::Q8_0 => 8,
            Self::Q4K => 12,
            Self::Q6K => 14,
        }
    }

    pub fn name(self) -> &'static str {
        ggml_type_name(self.id())
    }

    /// (weights per block, bytes per block).
    pub fn block(self) -> (usize, usize) {
        match self {
            Self::F32 => (1, 4),
            Self::F16 => (1, 2),
            Self::Q5_0 => (QK5_0, 2 + 4 + QK5_0 / 2),
            Self::Q8_0 => (QK8_0, 2 + QK8_0),
            Self::Q4K => (QK_K, 2 + 2 + 12 + QK_K / 2),
            Self::Q6K => (QK_K, QK_K / 2 + QK_K / 4 + QK_K / 16 + 2),
        }
    }

    /// The bytes `count` weights take, or why a row of `row` weights cannot be of this type.
    pub fn bytes(self, row: usize, count: usize) -> Result<usize, String> {
        let (per_block, block_bytes) = self.block();
        if !row.is_multiple_of(per_block) {
            return Err(format!("{} stores rows in blocks of {per_block}, not a row of {row}", self.name()));
        }
        Ok(count / per_block * block_bytes)
    }

    /// `bytes` as f32 weights, row-major.
    pub fn dequantise(self, bytes: &[u8]) -> Vec<f32> {
        let (per_block, block_bytes) = self.block();
        let mut out = Vec::with_capacity(bytes.len() / block_bytes * per_block);
        for block in bytes.chunks_exact(block_bytes) {
            match self {
                Self::F32 => out.push(f32::from_le_bytes([block[0], block[1], block[2], block[3]])),
                Self::F16 => out.push(half_at(block, 0)),
                Self::Q5_0 => dequantise_q5_0(block, &mut out),
                Self::Q8_0 => {
                    let d = half_at(block, 0);
                    out.extend(block[2..].iter().map(|&q| d * f32::from(q as i8)));
                }
                Self::Q4K => dequantise_q4_k(block, &mut out),
                Self::Q6K => dequantise_q6_k(block, &mut out),
            }
        }
        out
    }

    /// The type llama.cpp's CPU backend converts the activations to before it multiplies them by a
    /// matrix of this type (`type_traits_cpu[..].vec_dot_type`).
    pub fn activation_type(self) -> ActivationType {
        match self {
            Self::F32 => ActivationType::F32,
            Self::F16 => ActivationType::F16,
            Self::Q5_0 | Self::Q8_0 => ActivationType::Q8_0,
            Self::Q4K | Self::Q6K => ActivationType::Q8K,
        }
    }
}

/// ggml's name of tensor type `id` (ggml.c's `type_traits`), for messages.
fn ggml_type_name(id: u32) -> &'static str {
    const NAMES: [&str; 31] = [
        "F32", "F16", "Q4_0", "Q4_1", "Q4_2", "Q4_3", "Q5_0", "Q5_1", "Q8_0", "Q8_1", "Q2_K", "Q3_K", "Q4_K", "Q5_K",
        "Q6_K", "Q8_K", "IQ2_XXS", "IQ2_XS", "IQ3_XXS", "IQ1_S", "IQ4_NL", "IQ3_S", "IQ2_S", "IQ4_XS", "I8", "I16",
        "I32", "I64", "F64", "IQ1_M", "BF16",
    ];
    NAMES.get(id as usize).copied().unwrap_or("unknown")
}

fn half_at(bytes: &[u8], at: usize) -> f32 {
    f16::from_le_bytes([bytes[at], bytes[at + 1]]).to_f32()
}

/// ggml's `dequantize_row_q5_0`: 32 quants of 5 bits less 16, their low nibbles packed in pairs
/// (weight j and j + 16 share a byte) and their fifth bits in one little-endian u32.
fn dequantise_q5_0(block: &[u8], out: &mut Vec<f32>) {
    let d = half_at(block, 0);
    let high = u32::from_le_bytes([block[2], block[3], block[4], block[5]]);
    let quants = &block[6..];
    let weight = |low: u8, bit: usize| d * f32::from(i16::from(low | (((high >> bit) & 1) as u8) << 4) - 16);
    out.extend(quants.iter().enumerate().map(|(j, &q)| weight(q & 0x0F, j)));
    out.extend(quants.iter().enumerate().map(|(j, &q)| weight(q >> 4, j + QK5_0 / 2)));
}

/// ggml's `dequantize_row_q4_K`: 8 sub-blocks of 32 with 6-bit scales and mins.
fn dequantise_q4_k(block: &[u8], out: &mut Vec<f32>) {
    let d = half_at(block, 0);
    let min = half_at(block, 2);
    let scales = &block[4..16];
    let quants = &block[16..];
    for (pair, q) in quants.chunks_exact(32).enumerate() {
        let (sc1, m1) = scale_min_k4(2 * pair, scales);
        let (sc2, m2) = scale_min_k4(2 * pair + 1, scales);
        let (d1, m1) = (d * f32::from(sc1), min * f32::from(m1));
        let (d2, m2) = (d * f32::from(sc2), min * f32::from(m2));
        out.extend(q.iter().map(|&b| d1 * f32::from(b & 0xF) - m1));
        out.extend(q.iter().map(|&b| d2 * f32::from(b >> 4) - m2));
    }
}

/// ggml's `get_scale_min_k4`: sub-block `j`'s 6-bit scale and min, packed in 12 bytes.
fn scale_min_k4(j: usize, q: &[u8]) -> (u8, u8) {
    if j < 4 {
        (q[j] & 63, q[j + 4] & 63)
    } else {
        ((q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4), (q[j + 4] >> 4) | ((q[j] >> 6) << 4))
    }
}

/// ggml's `dequantize_row_q6_K`: 6-bit quants in low nibbles and high pairs, 16 signed scales.
fn dequantise_q6_k(block: &[u8], out: &mut Vec<f32>) {
    let (ql, rest) = block.split_at(QK_K / 2);
    let (qh, rest) = rest.split_at(QK_K / 4);
    let (scales, d) = rest.split_at(QK_K / 16);
    let d = half_at(d, 0);
    for half in 0..2 {
        let (ql, qh, sc) = (&ql[64 * half..], &qh[32 * half..], &scales[8 * half..]);
        let mut y = [0f32; 128];
        for l in 0..32 {
            let is = l / 16;
            let q1 = i32::from((ql[l] & 0xF) | ((qh[l] & 3) << 4)) - 32;
            let q2 = i32::from((ql[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4)) - 32;
            let q3 = i32::from((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
            let q4 = i32::from((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
            let scale = |k: usize| d * f32::from(sc[is + k] as i8);
            y[l] = scale(0) * q1 as f32;
            y[l + 32] = scale(2) * q2 as f32;
            y[l + 64] = scale(4) * q3 as f32;
            y[l + 96] = scale(6) * q4 as f32;
        }
        out.extend(y);
    }
}

/// The precision llama.cpp's CPU backend gives the activations of a matrix product.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ActivationType {
    F32,
    /// Rounded to half precision.
    F16,
    /// Blocks of 32 in 8 bits with a half-precision scale (x86's `quantize_row_q8_0`).
    Q8_0,
    /// Blocks of 256 in 8 bits with an f32 scale (`quantize_row_q8_K_ref`).
    Q8K,
}

impl ActivationType {
    /// Rounds `row` (one activation vector) in place as llama.cpp does before the product.
    pub fn round_row(self, row: &mut [f32]) {
        match self {
            Self::F32 => {}
            Self::F16 => row.iter_mut().for_each(|x| *x = f16::from_f32(*x).to_f32()),
            Self::Q8_0 => {
                for block in row.chunks_mut(QK8_0) {
                    let amax = block.iter().fold(0f32, |m, x| m.max(x.abs()));
                    let d = f16::from_f32(amax / 127.0).to_f32();
                    let inverse = if amax != 0.0 { 127.0 / amax } else { 0.0 };
                    block.iter_mut().for_each(|x| *x = (*x * inverse).round_ties_even() * d);
                }
            }
            Self::Q8K => {
                for block in row.chunks_mut(QK_K) {
                    // The element of largest magnitude, with its sign, as ggml keeps it.
                    let max = block.iter().fold(0f32, |m, &x| if x.abs() > m.abs() { x } else { m });
                    if max == 0.0 {
                        block.fill(0.0);
                        continue;
                    }
                    let inverse = -127.0 / max;
                    let d = 1.0 / inverse;
                    block.iter_mut().for_each(|x| *x = (*x * inverse).round_ties_even().min(127.0) * d);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn q8_0_block_is_its_scale_times_its_quants() {
        let mut block = f16::from_f32(0.5).to_le_bytes().to_vec();
        block.extend((0..32).map(|i| (i as i8 - 16) as u8));
        let weights = TensorType::Q8_0.dequantise(&block);
        assert_eq!(weights.len(), 32);
        assert_eq!(weights[0], -8.0);
        assert_eq!(weights[31], 7.5);
    }

    #[test]
    fn q5_0_joins_nibbles_and_fifth_bits_less_16() {
        // d = 0.5; byte j holds weight j (low nibble) and weight j + 16 (high nibble); bit j of the
        // u32 is weight j's fifth bit. Every byte 0x3A: low 10, high 3. Fifth bits set for
        // weights 0 and 17 (bits 0 and 17).
        let mut block = f16::from_f32(0.5).to_le_bytes().to_vec();
        block.extend((1u32 | 1 << 17).to_le_bytes());
        block.extend([0x3A; 16]);
        let weights = TensorType::Q5_0.dequantise(&block);
        assert_eq!(weights.len(), 32);
        assert_eq!(weights[0], 0.5 * ((10 + 16) - 16) as f32);
        assert_eq!(weights[1], 0.5 * (10 - 16) as f32);
        assert_eq!(weights[16], 0.5 * (3 - 16) as f32);
        assert_eq!(weights[17], 0.5 * ((3 + 16) - 16) as f32);
        assert_eq!(TensorType::from_id(6), Ok(TensorType::Q5_0));
        assert_eq!(TensorType::Q5_0.activation_type(), ActivationType::Q8_0);
        assert_eq!(TensorType::Q5_0.bytes(896, 896 * 2).unwrap(), 56 * 22);
    }

    #[test]
    fn q4_k_sub_blocks_use_their_packed_scales_and_mins() {
        // d = 1, dmin = 0.5; sub-block 0: scale 3, min 2; sub-block 4 (packed in the high bits):
        // scale 0b01_0101 = 21, min 0b10_0110 = 38. Every quant is 0x21 (low 1, high 2).
        let mut block = [0u8; 144];
        block[0..2].copy_from_slice(&f16::from_f32(1.0).to_le_bytes());
        block[2..4].copy_from_slice(&f16::from_f32(0.5).to_le_bytes());
        let scales = &mut block[4..16];
        scales[0] = 3 | (0b01 << 6); // scale 0, and scale 4's top two bits
        scales[4] = 2 | (0b10 << 6); // min 0, and min 4's top two bits
        scales[8] = 0b0101 | (0b0110 << 4); // scale 4's and min 4's low four bits
        block[16..].fill(0x21);
        let weights = TensorType::Q4K.dequantise(&block);
        assert_eq!(weights.len(), 256);
        assert_eq!(weights[0], 3.0 * 1.0 - 0.5 * 2.0); // sub-block 0, low nibble
        assert_eq!(weights[4 * 32], 21.0 * 1.0 - 0.5 * 38.0); // sub-block 4, low nibble of pair 2
        assert_eq!(weights[32], 0.0); // sub-block 1: scale 0, min 0
    }

    #[test]
    fn q6_k_joins_low_nibbles_and_high_pairs_less_32() {
        let mut block = [0u8; 210];
        block[..128].fill(0x5A); // low nibbles 10, high nibbles 5
        block[128..192].fill(0b11_10_01_00); // high pairs 0, 1, 2, 3 for the four quarters
        for (i, scale) in block[192..208].iter_mut().enumerate() {
            *scale = (i as i8 - 8) as u8;
        }
        block[208..].copy_from_slice(&f16::from_f32(0.25).to_le_bytes());
        let weights = TensorType::Q6K.dequantise(&block);
        // Weight 0: quant 10 | 0 << 4 = 10, less 32 = -22, scale -8: 0.25 × -8 × -22 = 44.
        assert_eq!(weights[0], 44.0);
        // Weight 96: high nibble 5 | pair 3 << 4 = 53, less 32 = 21; scale index 0 + 6 = -2.
        assert_eq!(weights[96], 0.25 * -2.0 * 21.0);
        // Weight 128 (second half): quant 10 - 32 = -22, scale index 8 = 0.
        assert_eq!(weights[128], 0.0);
    }

    #[test]
    fn q8_0_activations_round_to_127_steps_of_the_block_max() {
        let mut row: Vec<f32> = (0..32).map(|i| i as f32 / 31.0).collect();
        ActivationType::Q8_0.round_row(&mut row);
        let d = f16::from_f32(1.0 / 127.0).to_f32();
        assert_eq!(row[31], 127.0 * d);
        assert_eq!(row[1], (127.0f32 / 31.0).round_ties_even() * d);
    }

    #[test]
    fn unsupported_types_are_named() {
        assert_eq!(
            TensorType::from_id(2).unwrap_err(),
            "tensor type Q4_0 is not supported (supported: F32, F16, Q5_0, Q8_0, Q4_K, Q6_K)"
        );
        assert_eq!(TensorType::Q4K.bytes(100, 100).unwrap_err(), "Q4_K stores rows in blocks of 256, not a row of 100");
    }
}
