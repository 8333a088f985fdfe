//! The subset of ONNX's protobuf schema (`onnx/onnx.proto`, proto2, IR versions 3-11) that
//! the importer reads, as hand-written `prost` messages with the schema's field numbers.
//! Fields not declared here (docs, training info, functions, subgraph attributes, sparse
//! initializers, quantization annotations) are skipped by the decoder, as protobuf requires.
//! Hand-written instead of generated: no `protoc` at build time, and a few dozen lines
//! instead of the whole schema.
//!
//! Repeated scalars are declared unpacked (proto2's default); prost's decoder accepts both
//! the packed and the unpacked encoding, as protobuf parsers must.

use bytes::Bytes;

#[derive(Clone, PartialEq, prost::Message)]
pub struct ModelProto {
    #[prost(int64, tag = "1")]
    pub ir_version: i64,
    #[prost(message, repeated, tag = "8")]
    pub opset_import: Vec<OperatorSetIdProto>,
    #[prost(string, tag = "2")]
    pub producer_name: String,
    #[prost(string, tag = "3")]
    pub producer_version: String,
    #[prost(message, optional, tag = "7")]
    pub graph: Option<GraphProto>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct OperatorSetIdProto {
    #[prost(string, tag = "1")]
    pub domain: String,
    #[prost(int64, tag = "2")]
    pub version: i64,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct GraphProto {
    #[prost(message, repeated, tag = "1")]
    pub node: Vec<NodeProto>,
    #[prost(string, tag = "2")]
    pub name: String,
    #[prost(message, repeated, tag = "5")]
    pub initializer: Vec<TensorProto>,
    #[prost(message, repeated, tag = "11")]
    pub input: Vec<ValueInfoProto>,
    #[prost(message, repeated, tag = "12")]
    pub output: Vec<ValueInfoProto>,
    #[prost(message, repeated, tag = "13")]
    pub value_info: Vec<ValueInfoProto>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct NodeProto {
    #[prost(string, repeated, tag = "1")]
    pub input: Vec<String>,
    #[prost(string, repeated, tag = "2")]
    pub output: Vec<String>,
    #[prost(string, tag = "3")]
    pub name: String,
    #[prost(string, tag = "4")]
    pub op_type: String,
    #[prost(string, tag = "7")]
    pub domain: String,
    #[prost(message, repeated, tag = "5")]
    pub attribute: Vec<AttributeProto>,
    /// Exporters' annotations; PyTorch's torch.export-based exporter puts the module path of
    /// the op here (`pkg.torch.onnx.name_scopes`), its node names carry none.
    #[prost(message, repeated, tag = "9")]
    pub metadata_props: Vec<StringStringEntryProto>,
}

/// An attribute; the subgraph fields (`g`, `graphs`) are not declared, so control-flow ops
/// (`If`, `Loop`, `Scan`) are imported as ops the importer cannot size.
#[derive(Clone, PartialEq, prost::Message)]
pub struct AttributeProto {
    #[prost(string, tag = "1")]
    pub name: String,
    #[prost(int32, tag = "20")]
    pub r#type: i32,
    #[prost(float, tag = "2")]
    pub f: f32,
    #[prost(int64, tag = "3")]
    pub i: i64,
    #[prost(bytes = "bytes", tag = "4")]
    pub s: Bytes,
    #[prost(message, optional, tag = "5")]
    pub t: Option<TensorProto>,
    #[prost(float, repeated, packed = "false", tag = "7")]
    pub floats: Vec<f32>,
    #[prost(int64, repeated, packed = "false", tag = "8")]
    pub ints: Vec<i64>,
    /// A subgraph (If's branches, Loop's and Scan's body).
    #[prost(message, optional, tag = "6")]
    pub g: Option<GraphProto>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct TensorProto {
    #[prost(int64, repeated, packed = "false", tag = "1")]
    pub dims: Vec<i64>,
    #[prost(int32, tag = "2")]
    pub data_type: i32,
    #[prost(string, tag = "8")]
    pub name: String,
    #[prost(float, repeated, packed = "true", tag = "4")]
    pub float_data: Vec<f32>,
    #[prost(int32, repeated, packed = "true", tag = "5")]
    pub int32_data: Vec<i32>,
    #[prost(int64, repeated, packed = "true", tag = "7")]
    pub int64_data: Vec<i64>,
    #[prost(double, repeated, packed = "true", tag = "10")]
    pub double_data: Vec<f64>,
    #[prost(bytes = "bytes", tag = "9")]
    pub raw_data: Bytes,
    #[prost(message, repeated, tag = "13")]
    pub external_data: Vec<StringStringEntryProto>,
    /// 0 = DEFAULT (data in this message), 1 = EXTERNAL (in another file).
    #[prost(int32, tag = "14")]
    pub data_location: i32,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct StringStringEntryProto {
    #[prost(string, tag = "1")]
    pub key: String,
    #[prost(string, tag = "2")]
    pub value: String,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct ValueInfoProto {
    #[prost(string, tag = "1")]
    pub name: String,
    #[prost(message, optional, tag = "2")]
    pub r#type: Option<TypeProto>,
}

/// `TypeProto`: only its `tensor_type` member of the `value` oneof is read (sequences, maps
/// and optionals are not sized).
#[derive(Clone, PartialEq, prost::Message)]
pub struct TypeProto {
    #[prost(message, optional, tag = "1")]
    pub tensor_type: Option<TensorTypeProto>,
}

/// `TypeProto.Tensor`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TensorTypeProto {
    #[prost(int32, tag = "1")]
    pub elem_type: i32,
    #[prost(message, optional, tag = "2")]
    pub shape: Option<TensorShapeProto>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct TensorShapeProto {
    #[prost(message, repeated, tag = "1")]
    pub dim: Vec<Dimension>,
}

/// `TensorShapeProto.Dimension`: the `value` oneof read as two optional fields.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Dimension {
    #[prost(int64, optional, tag = "1")]
    pub dim_value: Option<i64>,
    #[prost(string, optional, tag = "2")]
    pub dim_param: Option<String>,
}

/// Bytes per element of an ONNX `TensorProto.DataType`; `None` for strings, undefined and
/// unknown types. 4-bit types count half a byte.
pub fn elem_bytes(data_type: i32) -> Option<f64> {
    Some(match data_type {
        1 | 6 | 12 => 4.0,          // FLOAT, INT32, UINT32
        2 | 3 | 9 | 17..=20 => 1.0, // UINT8, INT8, BOOL, FLOAT8 variants
        4 | 5 | 10 | 16 => 2.0,     // UINT16, INT16, FLOAT16, BFLOAT16
        7 | 11 | 13 | 14 => 8.0,    // INT64, DOUBLE, UINT64, COMPLEX64
        15 => 16.0,                 // COMPLEX128
        21..=23 => 0.5,             // UINT4, INT4, FLOAT4E2M1
        _ => return None,
    })
}

/// The ONNX name of a floating-point `TensorProto.DataType` (`float32` for FLOAT), else
/// `other`.
pub fn type_name(data_type: i32) -> &'static str {
    match data_type {
        1 => "float32",
        10 => "float16",
        11 => "float64",
        16 => "bfloat16",
        17..=20 => "float8",
        23 => "float4",
        _ => "other",
    }
}
