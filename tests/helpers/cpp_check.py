"""A static check of DirectML C++ as the tour shows it (docs/tour.md's ```cpp blocks, read in order as one function
body): every name declared once and before use, `.Get()`, `.As()` and `->` only on ComPtr variables, DirectML.h's
structs, fields and enumerators as the header declares them, initializer and argument counts, DirectMLX's parameter
types. It is no compiler: it catches what a reader copying the tour would meet first (an undeclared operator, a
method called on a plain struct), and tests/device/artefacts/test_readme_and_tour.py proves that it does."""

from __future__ import annotations

import enum
import json
import re
from dataclasses import dataclass
from pathlib import Path

from dmlpy import enums

FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.DOTALL | re.MULTILINE)
ELEMENT_WISE = Path(__file__).resolve().parents[1] / "data" / "directml-elementwise" / "support.json"
OTHER_OPERATORS = Path(__file__).resolve().parents[1] / "data" / "directml-operators" / "support.json"
"""DirectML.h's other operator structs (GEMM, CONVOLUTION, ...), their fields in C order, as
tests/data/directml-operators/README.md says they were transcribed."""
HEADER = "microsoft/DirectX-Headers@567cebcfa3eac08ab6a45e8d87f8928430004a42:include/directx/DirectML.h"
HEADER_STRUCTS: dict[str, tuple[str, ...]] = {
    "DML_BUFFER_TENSOR_DESC": (
        "DataType", "Flags", "DimensionCount", "Sizes", "Strides", "TotalTensorSizeInBytes",
        "GuaranteedBaseOffsetAlignment",
    ),
    "DML_TENSOR_DESC": ("Type", "Desc"),
    "DML_OPERATOR_DESC": ("Type", "Desc"),
    "DML_SCALE_BIAS": ("Scale", "Bias"),
    "DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT": ("DataType",),
    "DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT": ("IsSupported",),
    "DML_FEATURE_QUERY_FEATURE_LEVELS": ("RequestedFeatureLevelCount", "RequestedFeatureLevels"),
    "DML_FEATURE_DATA_FEATURE_LEVELS": ("MaxSupportedFeatureLevel",),
    "DML_BINDING_TABLE_DESC": ("Dispatchable", "CPUDescriptorHandle", "GPUDescriptorHandle", "SizeInDescriptors"),
    "DML_BINDING_PROPERTIES": ("RequiredDescriptorCount", "TemporaryResourceSize", "PersistentResourceSize"),
    "DML_BINDING_DESC": ("Type", "Desc"),
    "DML_BUFFER_BINDING": ("Buffer", "Offset", "SizeInBytes"),
    "DML_GRAPH_EDGE_DESC": ("Type", "Desc"),
    "DML_INPUT_GRAPH_EDGE_DESC": ("GraphInputIndex", "ToNodeIndex", "ToNodeInputIndex", "Name"),
    "DML_OUTPUT_GRAPH_EDGE_DESC": ("FromNodeIndex", "FromNodeOutputIndex", "GraphOutputIndex", "Name"),
    "DML_INTERMEDIATE_GRAPH_EDGE_DESC": (
        "FromNodeIndex", "FromNodeOutputIndex", "ToNodeIndex", "ToNodeInputIndex", "Name",
    ),
    "DML_GRAPH_NODE_DESC": ("Type", "Desc"),
    "DML_OPERATOR_GRAPH_NODE_DESC": ("Operator", "Name"),
    "DML_GRAPH_DESC": (
        "InputCount", "OutputCount", "NodeCount", "Nodes", "InputEdgeCount", "InputEdges", "OutputEdgeCount",
        "OutputEdges", "IntermediateEdgeCount", "IntermediateEdges",
    ),
}  # fmt: skip
"""DirectML.h's structs other than the operator descriptors, their fields in C order (HEADER)."""
HEADER_ENUMS = {
    "DML_TENSOR_DATA_TYPE", "DML_TENSOR_TYPE", "DML_TENSOR_FLAGS", "DML_OPERATOR_TYPE", "DML_ROUNDING_MODE",
    "DML_IS_INFINITY_MODE", "DML_FEATURE_LEVEL", "DML_FEATURE", "DML_EXECUTION_FLAGS", "DML_CREATE_DEVICE_FLAGS",
    "DML_BINDING_TYPE", "DML_GRAPH_EDGE_TYPE", "DML_GRAPH_NODE_TYPE",
}  # fmt: skip
"""DirectML.h's enum types the tour may name as types (HEADER)."""
INTERFACES: dict[str, tuple[str | None, dict[str, tuple[int, ...]]]] = {
    # DirectML.h (HEADER): the base interface, and each method's parameter count
    "IDMLDevice": (None, {
        "CheckFeatureSupport": (5,), "CreateOperator": (3,), "CompileOperator": (4,),
        "CreateOperatorInitializer": (4,), "CreateCommandRecorder": (2,), "CreateBindingTable": (3,),
    }),
    "IDMLDevice1": ("IDMLDevice", {"CompileGraph": (4,)}),
    "IDMLOperator": (None, {}),
    "IDMLDispatchable": (None, {"GetBindingProperties": (0,)}),
    "IDMLCompiledOperator": ("IDMLDispatchable", {}),
    "IDMLOperatorInitializer": ("IDMLDispatchable", {"Reset": (2,)}),
    "IDMLBindingTable": (None, {
        "BindInputs": (2,), "BindOutputs": (2,), "BindTemporaryResource": (1,), "BindPersistentResource": (1,),
        "Reset": (1,),
    }),
    "IDMLCommandRecorder": (None, {"RecordDispatch": (3,)}),
    # d3d12.h (microsoft/DirectX-Headers include/directx/d3d12.h)
    "ID3D12Device": (None, {}),
    "ID3D12Resource": (None, {}),
    "ID3D12Fence": (None, {"SetEventOnCompletion": (2,)}),
    "ID3D12CommandList": (None, {}),
    "ID3D12GraphicsCommandList": ("ID3D12CommandList", {"Close": (0,)}),
    "ID3D12CommandQueue": (None, {"ExecuteCommandLists": (2,), "Signal": (2,)}),
    "ID3D12DescriptorHeap": (None, {
        "GetCPUDescriptorHandleForHeapStart": (0,), "GetGPUDescriptorHandleForHeapStart": (0,),
    }),
}  # fmt: skip
"""The COM interfaces the tour uses: methods and parameter counts as the headers declare them."""
COMPTR_METHODS = {"Get": (0,), "As": (1,), "GetAddressOf": (0,), "Reset": (0,)}
"""Microsoft::WRL::ComPtr's (wrl/client.h)."""
CLASSES: dict[str, dict[str, tuple[int, ...]]] = {
    # DirectMLX.h (microsoft/DirectML Libraries/DirectMLX.h): constructors as "", methods by name
    "dml::Graph": {"": (1, 2), "Compile": (2, 3)},
    "dml::Expression": {},
    "dml::TensorDesc": {"": (0, 1, 2, 3, 4, 6)},
}
FUNCTIONS: dict[str, tuple[int, ...]] = {
    "DMLCreateDevice1": (5,),  # DirectML.h
    "DMLCalcBufferTensorSize": (4,),  # DirectMLX.h, and Learn's "DirectML helper functions"
    "IID_PPV_ARGS": (1,),  # combaseapi.h: expands to two arguments, the IID and the void**
    "CreateEvent": (4,),  # synchapi.h
    "WaitForSingleObject": (2,),
    "std::max": (2, 3),
    "dml::InputTensor": (3,),  # DirectMLX.h
    "dml::Round": (1, 2),
    "dml::QuantizeLinear": (3, 4),
    "dml::DequantizeLinear": (3,),
}
PARAMETER_TYPES: dict[str, tuple[tuple[str, ...] | None, ...]] = {
    "dml::InputTensor": (("dml::Graph",), None, ("DML_TENSOR_DESC", "DML_BUFFER_TENSOR_DESC", "dml::TensorDesc")),
    "dml::Round": (("dml::Expression",), None),
    "dml::QuantizeLinear": (("dml::Expression",),) * 3 + (None,),
    "dml::DequantizeLinear": (("dml::Expression",),) * 3,
}
"""DirectMLX.h's parameter types, checked where an argument is a variable."""
RETURNS = {name: "dml::Expression" for name in PARAMETER_TYPES}
"""What DirectMLX.h's functions return: the type of ``auto x = dml::Round(...)``."""
PLAIN_TYPES = {"UINT", "UINT64", "INT", "BOOL", "FLOAT", "HANDLE", "SIZE_T", "auto"}
CONSTANTS = {"nullptr", "TRUE", "FALSE", "INFINITE", "true", "false"}
KEYWORDS = {"const", "sizeof", "using", "return"}
CPP_TOKEN = re.compile(r"->|::|\+\+|--|\d[\w.]*|[A-Za-z_]\w*|\S")


def _enumerators() -> set[str]:
    names = {op["enum"] for op in json.loads(ELEMENT_WISE.read_text(encoding="utf-8"))["ops"]}
    for value in vars(enums).values():
        if isinstance(value, type) and issubclass(value, enum.Enum) and value.__module__ == enums.__name__:
            names |= {member.c_name for member in value}  # type: ignore[attr-defined]
            if issubclass(value, enum.Flag):
                names.add(value(0).c_name)  # type: ignore[attr-defined]
    return {name for name in names if name.startswith("DML_")}


def _structs() -> dict[str, tuple[str, ...]]:
    table = [
        op for path in (ELEMENT_WISE, OTHER_OPERATORS) for op in json.loads(path.read_text(encoding="utf-8"))["ops"]
    ]
    return {**HEADER_STRUCTS, **{op["struct"]: tuple(field["name"] for field in op["fields"]) for op in table}}


def _split(tokens: list[str], separator: str) -> list[list[str]]:
    """``tokens`` split at ``separator`` outside brackets."""
    parts: list[list[str]] = [[]]
    depth = 0
    for token in tokens:
        depth += (token in "([{") - (token in ")]}")
        if token == separator and depth == 0:
            parts.append([])
        else:
            parts[-1].append(token)
    return parts if parts != [[]] else []


def _closing(tokens: list[str], start: int) -> int:
    """The index of the bracket that closes ``tokens[start]``."""
    depth = 0
    for index in range(start, len(tokens)):
        depth += (tokens[index] in "([{") - (tokens[index] in ")]}")
        if depth == 0:
            return index
    raise AssertionError(f"unbalanced: {' '.join(tokens[start:])}")


@dataclass
class Variable:
    type: str  # "ComPtr<IDMLDevice>", "DML_TENSOR_DESC", "dml::Expression", "UINT", "IDMLCompiledOperator*"
    array: bool


class CppChecker:
    """The tour's C++ blocks as one function body: what it declares, and the problems it finds."""

    def __init__(self) -> None:
        self.structs = _structs()
        self.enumerators = _enumerators()
        self.variables: dict[str, Variable] = {}
        self.using: set[str] = set()
        self.problems: list[str] = []
        self.where = ""

    def problem(self, text: str) -> None:
        self.problems.append(f"{self.where}: {text}")

    def check_block(self, where: str, source: str) -> None:
        self.where = where
        code = re.sub(r'"(?:[^"\\]|\\.)*"', '""', re.sub(r"//[^\n]*", "", source))
        for statement in _split(CPP_TOKEN.findall(code), ";"):
            if statement:
                self.statement(statement)

    # ------------------------------------------------------------------ statements

    def statement(self, tokens: list[str]) -> None:
        if tokens[0] == "using":
            name = "".join(tokens[1:])
            if name != "Microsoft::WRL::ComPtr":
                self.problem(f"using {name}: not a name the check knows")
            self.using.add(name.rsplit("::", 1)[-1])
            return
        declared = self.declared_type(tokens)
        if declared is None:
            self.expression(tokens)
            return
        type_name, start = declared
        for declarator in _split(tokens[start:], ","):
            self.declarator(type_name, declarator)

    def declared_type(self, tokens: list[str]) -> tuple[str, int] | None:
        """The type a declaration starts with, and where its declarators start; None for an expression."""
        index = 1 if tokens[0] == "const" else 0
        name = tokens[index]
        index += 1
        while index + 1 < len(tokens) and tokens[index] == "::":
            name += "::" + tokens[index + 1]
            index += 2
        if name in {"ComPtr", "Microsoft::WRL::ComPtr"} and tokens[index : index + 1] == ["<"]:
            if name == "ComPtr" and "ComPtr" not in self.using:
                self.problem("ComPtr without `using Microsoft::WRL::ComPtr`")
            end = tokens.index(">", index)
            interface = "".join(tokens[index + 1 : end])
            if interface not in INTERFACES:
                self.problem(f"ComPtr<{interface}>: not an interface of DirectML.h or d3d12.h the check knows")
            name, index = f"ComPtr<{interface}>", end + 1
        elif name in INTERFACES:
            if tokens[index : index + 1] != ["*"]:
                return None
        elif not (name in self.structs or name in HEADER_ENUMS or name in PLAIN_TYPES or name in CLASSES):
            if name.startswith("DML_") and name not in self.enumerators:
                self.problem(f"{name}: no such struct or enum in DirectML.h")
            return None
        while tokens[index : index + 1] == ["*"]:
            name += "*"
            index += 1
        if index < len(tokens) and re.fullmatch(r"[A-Za-z_]\w*", tokens[index]):
            return name, index
        return None

    def declarator(self, type_name: str, tokens: list[str]) -> None:
        name, rest = tokens[0], tokens[1:]
        array = rest[:1] == ["["]
        if array:
            end = _closing(rest, 0)
            self.expression(rest[1:end])
            rest = rest[end + 1 :]
        if name in self.variables:
            self.problem(f"{name} is declared twice")
        if rest[:1] == ["("]:  # a constructor call: dml::Graph graph(device)
            self.arity(type_name, CLASSES.get(type_name, {}).get(""), self.arguments(rest, 0))
            self.expression(rest)
        elif rest[:1] == ["="]:
            value = rest[1:]
            if value[:1] == ["{"]:
                self.initializer(type_name, array, value)
            self.expression(value)
            if type_name == "auto" and value[1:2] == ["::"]:
                type_name = RETURNS.get("".join(value[:3]), type_name)
        elif rest:
            self.problem(f"cannot read the declaration of {name}: {' '.join(tokens)}")
        self.variables[name] = Variable(type_name, array)

    def initializer(self, type_name: str, array: bool, value: list[str]) -> None:
        fields = self.structs.get(type_name)
        if fields is None:
            return
        elements = _split(value[1 : _closing(value, 0)], ",")
        for element in elements if array else [value]:
            if element[:1] == ["{"]:
                count = len(_split(element[1 : _closing(element, 0)], ","))
                if count > len(fields):
                    self.problem(f"{count} values initialize {type_name}, which has {len(fields)} fields")

    # ------------------------------------------------------------------ expressions

    def arguments(self, tokens: list[str], start: int) -> list[list[str]]:
        return _split(tokens[start + 1 : _closing(tokens, start)], ",")

    def arity(self, name: str, allowed: tuple[int, ...] | None, arguments: list[list[str]]) -> None:
        if allowed is None:
            self.problem(f"calls {name}, whose declaration the check does not know")
        elif len(arguments) + sum(argument[:1] == ["IID_PPV_ARGS"] for argument in arguments) not in allowed:
            self.problem(f"{name} takes {' or '.join(map(str, allowed))} arguments, not {len(arguments)}")

    def expression(self, tokens: list[str]) -> None:
        for index, token in enumerate(tokens):
            before = tokens[index - 1] if index else ""
            after = tokens[index + 1] if index + 1 < len(tokens) else ""
            if not re.fullmatch(r"[A-Za-z_]\w*", token) or before in {".", "->", "::"} or after == "::":
                if token == "::" and after and re.fullmatch(r"[A-Za-z_]\w*", after):
                    self.qualified(tokens, index)
                continue
            if token in KEYWORDS or token in CONSTANTS:
                continue
            if token in FUNCTIONS and after == "(":
                arguments = self.arguments(tokens, index + 1)
                self.arity(token, FUNCTIONS[token], arguments)
                if token == "IID_PPV_ARGS":
                    self.interface_pointer(arguments)
                continue
            if token.startswith("DML_"):
                if token not in self.enumerators and token not in self.structs:
                    self.problem(f"{token}: no such enumerator or struct in DirectML.h")
                continue
            variable = self.variables.get(token)
            if variable is None:
                self.problem(f"{token} is used but not declared in this block or an earlier one")
            elif after in {".", "->"}:
                self.member(token, variable, after, tokens, index + 2)

    def qualified(self, tokens: list[str], index: int) -> None:
        """``ns::name`` at tokens[index - 1 : index + 2]."""
        name = f"{tokens[index - 1]}::{tokens[index + 1]}"
        if index >= 2 and tokens[index - 2] == "::":
            return  # the tail of a longer name, checked from its start
        if tokens[index + 2 : index + 3] != ["("]:
            self.problem(f"{name}: not a call the check knows")
            return
        arguments = self.arguments(tokens, index + 2)
        if name in CLASSES:
            self.arity(name, CLASSES[name].get(""), arguments)
            return
        self.arity(name, FUNCTIONS.get(name), arguments)
        for argument, types in zip(arguments, PARAMETER_TYPES.get(name, ()), strict=False):
            variable = self.variables.get(argument[0]) if len(argument) == 1 else None
            if types is not None and variable is not None and (variable.type not in types or variable.array):
                self.problem(f"{name} takes {' or '.join(types)} there, not {argument[0]} ({variable.type})")

    def interface_pointer(self, arguments: list[list[str]]) -> None:
        argument = arguments[0] if arguments else []
        variable = self.variables.get(argument[-1]) if len(argument) == 2 and argument[0] == "&" else None
        if variable is None or not variable.type.startswith("ComPtr<"):
            self.problem(f"IID_PPV_ARGS takes &comPtr, not {' '.join(argument)}")

    def member(self, name: str, variable: Variable, access: str, tokens: list[str], index: int) -> None:
        member = tokens[index] if index < len(tokens) else ""
        called = tokens[index + 1 : index + 2] == ["("]
        arguments = self.arguments(tokens, index + 1) if called else []
        comptr = variable.type.startswith("ComPtr<") and not variable.array
        if access == "->":
            if not comptr:
                self.problem(f"{name}->{member}: `->` on {variable.type}, not a ComPtr")
                return
            methods = self.methods(variable.type[len("ComPtr<") : -1])
            if member not in methods:
                self.problem(f"{name}->{member}: {variable.type} has no method {member}")
            elif called:
                self.arity(f"{name}->{member}", methods[member], arguments)
        elif comptr:
            if member not in COMPTR_METHODS:
                self.problem(f"{name}.{member}: ComPtr has no {member}")
            elif called:
                self.arity(f"{name}.{member}", COMPTR_METHODS[member], arguments)
        elif member in {"Get", "As", "GetAddressOf"}:
            self.problem(f"{name}.{member}(): {name} is a {variable.type}, not a ComPtr")
        elif variable.type in CLASSES and not variable.array:
            if member not in CLASSES[variable.type] or not called:
                self.problem(f"{name}.{member}: {variable.type} has no method {member}")
            else:
                self.arity(f"{name}.{member}", CLASSES[variable.type][member], arguments)
        elif variable.type in self.structs and not variable.array:
            if member not in self.structs[variable.type]:
                self.problem(f"{name}.{member}: {variable.type} has no field {member} in DirectML.h")
        else:
            self.problem(f"{name}.{member}: {variable.type} has no members the check knows")

    def methods(self, interface: str | None) -> dict[str, tuple[int, ...]]:
        found: dict[str, tuple[int, ...]] = {}
        while interface is not None:
            base, own = INTERFACES[interface]
            found |= own
            interface = base
        return found


def check_cpp(page_text: str) -> list[str]:
    """The problems of a page's C++ blocks, read in order as one function body."""
    checker = CppChecker()
    for fence in FENCE.finditer(page_text):
        if fence.group(1) == "cpp":
            checker.check_block(
                f"the cpp block at line {page_text.count(chr(10), 0, fence.start()) + 1}", fence.group(2)
            )
    return checker.problems
