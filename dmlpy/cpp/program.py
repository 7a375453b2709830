"""The C++ around the structs, in the order of Microsoft's HelloDirectML sample: the Direct3D 12 device (a
comment), DMLCreateDevice1, the structs, IDMLDevice::CreateOperator and CompileOperator (or, for a graph, one
IDMLOperator per node and IDMLDevice1::CompileGraph), then the Direct3D 12 half that initialises, binds and
dispatches, as numbered comments: it depends on the application (its adapter, queue, heaps and resources), and
what it needs from the descriptor (bindings and their sizes) is filled in."""

from __future__ import annotations

from dmlpy.cpp.literals import c_enum, camel
from dmlpy.cpp.structs import StructWriter
from dmlpy.enums import ExecutionFlags, FeatureLevel
from dmlpy.graph.desc import GraphDesc
from dmlpy.graph.nodes import InputGraphEdgeDesc, OperatorGraphNodeDesc, OutputGraphEdgeDesc
from dmlpy.ops._base import OperatorDescBase
from dmlpy.ops.union import OperatorDesc
from dmlpy.tensor import TensorDesc

INCLUDES = "// Needs <wrl/client.h>, <d3d12.h> and <DirectML.h> (DirectML.h as of FL 6_4); <cmath> for INFINITY/NAN."
NO_FLAGS = c_enum(ExecutionFlags(0), "DML_EXECUTION_FLAGS")

DEVICE = [
    "// ---- Direct3D 12: the device DirectML runs on (HelloDirectML's InitializeDirect3D12) ----",
    "// D3D12CreateDevice(adapter, D3D_FEATURE_LEVEL_11_0, IID_PPV_ARGS(&d3d12Device)) makes the device; then a",
    "// command queue (D3D12_COMMAND_LIST_TYPE_DIRECT), a command allocator and a graphics command list to record",
    "// DirectML's work into. A debug build may enable the D3D12 debug layer first.",
    "using Microsoft::WRL::ComPtr;",
    "ComPtr<ID3D12Device> d3d12Device;  // made by D3D12CreateDevice, above",
    "",
    "// ---- DirectML: the device (each call returns an HRESULT: HelloDirectML wraps each in THROW_IF_FAILED) ----",
    "ComPtr<IDMLDevice1> dmlDevice;",
]


def _device(level: FeatureLevel) -> list[str]:
    return [
        *DEVICE,
        f"DMLCreateDevice1(d3d12Device.Get(), DML_CREATE_DEVICE_FLAG_NONE, {level.c_name}, IID_PPV_ARGS(&dmlDevice));",
        "",
    ]


def _slot_label(desc: OperatorDescBase, slot: str) -> str:
    """A binding slot by its C member: ``InputTensor``, ``InputTensors[1]``, or a slot of no member of its own
    (QUANTIZE's ``scale_tensor``, an entry of QuantizationTensors) in C spelling."""
    base, _, index = slot.partition("[")
    field = type(desc).model_fields.get(base)
    name = field.alias or base if field is not None else "".join(part.capitalize() for part in base.split("_"))
    return f"{name}[{index}" if index else name


def _binding(label: str, tensor: TensorDesc | None) -> str:
    if tensor is None:
        return f"//      {label}: not bound (DML_BINDING_TYPE_NONE)"
    size = tensor.desc.total_tensor_size_in_bytes
    return f"//      {label}: a DML_BUFFER_BINDING of {size} bytes (its TotalTensorSizeInBytes)"


def _execution(dispatchable: str, inputs: list[str], outputs: list[str]) -> list[str]:
    """The Direct3D 12 half as numbered comments, HelloDirectML's steps, with ``dispatchable``'s bindings."""
    return [
        "",
        "// ---- Direct3D 12: initialize, bind, dispatch, wait (HelloDirectML's steps, in brief) ----",
        "// 1. Initializer: dmlDevice->CreateOperatorInitializer(1, <the compiled operator's address>,",
        "//    IID_PPV_ARGS(&initializer)) prepares the persistent resource before the first dispatch.",
        "// 2. Descriptor heap: GetBindingProperties() of the initializer and of the compiled operator give",
        "//    RequiredDescriptorCount (take the larger) to size an ID3D12DescriptorHeap",
        "//    (D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE); the command list",
        "//    SetDescriptorHeaps to it.",
        "// 3. Binding table: dmlDevice->CreateBindingTable(&tableDesc, IID_PPV_ARGS(&bindingTable)), its",
        "//    DML_BINDING_TABLE_DESC naming the initializer, the heap's CPU and GPU handles and the descriptor count.",
        "// 4. Resources (D3D12_HEAP_TYPE_DEFAULT buffers, D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS):",
        "//    TemporaryResourceSize (the larger of the two) for scratch, bound with BindTemporaryResource;",
        "//    PersistentResourceSize, if not 0, bound as the initializer's output and later as the",
        "//    operator's BindPersistentResource. Upload the inputs through a D3D12_HEAP_TYPE_UPLOAD buffer.",
        "// 5. Record: IDMLCommandRecorder (dmlDevice->CreateCommandRecorder) ->RecordDispatch(commandList,",
        "//    initializer, bindingTable); then bindingTable->Reset for " + dispatchable + ", BindInputs and",
        "//    BindOutputs in binding order, and RecordDispatch(commandList, " + dispatchable + ", bindingTable):",
        f"//    inputs ({len(inputs)}):",
        *inputs,
        f"//    outputs ({len(outputs)}):",
        *outputs,
        "// 6. Run: close the command list, commandQueue->ExecuteCommandLists, commandQueue->Signal(fence, value),",
        "//    fence->SetEventOnCompletion(value, event) and WaitForSingleObject(event, INFINITE); copy the outputs",
        "//    to a D3D12_HEAP_TYPE_READBACK buffer (CopyResource) and Map it to read them.",
    ]


def tensor_cpp(tensor: TensorDesc) -> list[str]:
    """A tensor's DML_BUFFER_TENSOR_DESC and DML_TENSOR_DESC (no operator, so no device)."""
    writer = StructWriter()
    kind, desc = writer.wrapped(tensor, "tensor")
    return [
        "// DML_TENSOR_DESC as DirectML C++, in the style of Microsoft's HelloDirectML sample.",
        INCLUDES,
        *writer.lines,
        f"DML_TENSOR_DESC {writer.name('tensor')} = {{{kind}, {desc}}};",
    ]


def operator_cpp(desc: OperatorDescBase, level: FeatureLevel) -> list[str]:
    """An operator's structs, CreateOperator and CompileOperator, and the Direct3D 12 half as comments."""
    writer = StructWriter()
    operator_desc = writer.operator(desc, "")
    inputs = [_binding(_slot_label(desc, s), t) for s, t in zip(desc.input_fields(), desc.input_tensors(), strict=True)]
    outputs = [
        _binding(_slot_label(desc, s), t) for s, t in zip(desc.output_fields(), desc.output_tensors(), strict=True)
    ]
    return [
        f"// {desc.OPERATOR_TYPE.c_name} as DirectML C++, in the style of Microsoft's HelloDirectML sample;",
        f"// dmlpy validated the descriptor at {level.c_name}, the lowest level the device is asked for.",
        INCLUDES,
        "",
        *_device(level),
        f"// ---- The operator's structs: each member assigned in {desc.OPERATOR_TYPE.name}'s C order ----",
        *writer.lines,
        "",
        "// ---- Create and compile ----",
        "ComPtr<IDMLOperator> dmlOperator;",
        f"dmlDevice->CreateOperator(&{operator_desc}, IID_PPV_ARGS(&dmlOperator));",
        "ComPtr<IDMLCompiledOperator> dmlCompiledOperator;",
        f"dmlDevice->CompileOperator(dmlOperator.Get(), {NO_FLAGS}, IID_PPV_ARGS(&dmlCompiledOperator));",
        *_execution("dmlCompiledOperator", inputs, outputs),
    ]


class GraphWriter(StructWriter):
    """A StructWriter whose graph nodes point at IDMLOperators it creates from their descriptors."""

    def pointer_to_operator(self, wrapper: OperatorDesc, prefix: str) -> str:
        operator_desc = self.operator(wrapper.desc, prefix)
        name = self.name(camel(f"{prefix}Operator"))
        self.lines += [
            f"ComPtr<IDMLOperator> {name};",
            f"dmlDevice->CreateOperator(&{operator_desc}, IID_PPV_ARGS(&{name}));",
        ]
        return f"{name}.Get()"


def _graph_bindings(graph: GraphDesc) -> tuple[list[str], list[str]]:
    """Each graph input and output with the tensor of the node slot it feeds or is."""
    inputs: dict[int, TensorDesc | None] = {}
    outputs: dict[int, TensorDesc | None] = {}
    for wrapper in (*graph.input_edges, *graph.output_edges):
        edge = wrapper.desc
        if isinstance(edge, InputGraphEdgeDesc):
            node = graph.nodes[edge.to_node_index].desc
            if isinstance(node, OperatorGraphNodeDesc):
                inputs[edge.graph_input_index] = node.op.input_tensors()[edge.to_node_input_index]
        elif isinstance(edge, OutputGraphEdgeDesc):
            node = graph.nodes[edge.from_node_index].desc
            if isinstance(node, OperatorGraphNodeDesc):
                outputs[edge.graph_output_index] = node.op.output_tensors()[edge.from_node_output_index]
    return (
        [_binding(f"graph input {i}", inputs.get(i)) for i in range(graph.input_count)],
        [_binding(f"graph output {i}", outputs.get(i)) for i in range(graph.output_count)],
    )


def graph_cpp(graph: GraphDesc, level: FeatureLevel) -> list[str]:
    """A graph's structs, one CreateOperator per operator node, CompileGraph, and the Direct3D 12 half."""
    writer = GraphWriter()
    graph_desc = writer.struct(graph, "graphDesc", "")
    inputs, outputs = _graph_bindings(graph)
    return [
        f"// DML_GRAPH_DESC of {len(graph.nodes)} nodes as DirectML C++, in the style of Microsoft's HelloDirectML",
        f"// sample; dmlpy validated the graph at {level.c_name}, the lowest level the device is asked for.",
        INCLUDES,
        "",
        *_device(level),
        "// ---- The graph's structs: each node's operator created from its own structs, then the edges ----",
        *writer.lines,
        "",
        "// ---- Compile (IDMLDevice1: graphs arrived with DirectML 1.1) ----",
        "ComPtr<IDMLCompiledOperator> dmlCompiledOperator;",
        f"dmlDevice->CompileGraph(&{graph_desc}, {NO_FLAGS}, IID_PPV_ARGS(&dmlCompiledOperator));",
        *_execution("dmlCompiledOperator", inputs, outputs),
    ]
