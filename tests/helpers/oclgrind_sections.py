"""Reading a variants script's stderr under Oclgrind: the script writes ``@@VARIANT <name>`` before each variant,
so every Oclgrind report can be attributed to the variant that caused it."""

from __future__ import annotations

import re

BENIGN = re.compile(
    r"Oclgrind - OpenCL runtime error detected\s+Function: clGetDeviceInfo\s+Error:\s+CL_INVALID_VALUE\s+"
    r"For argument 'param_name'\s*"
)
"""pyopencl's Program.build asks the device for properties Oclgrind does not know; Oclgrind's API checker reports
each as CL_INVALID_VALUE from clGetDeviceInfo. That is not a kernel problem."""


def variant_sections(stderr: str) -> dict[str, str]:
    """The stderr text after each ``@@VARIANT <name>`` line, by name (``<startup>`` before the first)."""
    sections: dict[str, str] = {"<startup>": ""}
    current = "<startup>"
    for line in stderr.splitlines(keepends=True):
        if line.startswith("@@VARIANT "):
            current = line.split(" ", 1)[1].strip()
            sections[current] = ""
        else:
            sections[current] += line
    return sections


def reports(section: str) -> str:
    """Oclgrind's reports in a section, without the benign API probe reports."""
    return BENIGN.sub("", section).strip()
