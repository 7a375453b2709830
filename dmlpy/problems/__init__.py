"""The one translation of pydantic's validation errors into DirectML's terms: one teaching line per problem, in
C field paths that start at the struct's C name, with the accepted values and hints. ``dmlpy.model`` applies it
to every descriptor model (constructors, ``model_validate*``), so the API, the JSON parser and the CLI speak
with one voice.

It reads everything from the model class being validated and its nested fields (aliases, annotations,
:class:`Expect` metadata, enums) and from the class-level hooks of ``dmlpy.model.DmlModel`` (``struct_name``,
``WRAPS``, ``SELECTOR``, ``member_for_tag``, ``field_choices``, ``value_hint``), which it finds by name, so this
package sits below the model layer and imports none of it. ``translation`` reads the errors; ``values`` shows
the values they hold.
"""

from dmlpy.errors import DescriptorProblems as DescriptorProblems
from dmlpy.problems.translation import Expect as Expect
from dmlpy.problems.translation import validation_problems as validation_problems
from dmlpy.problems.values import QUOTED_LENGTH as QUOTED_LENGTH
from dmlpy.problems.values import did_you_mean as did_you_mean
from dmlpy.problems.values import quoted as quoted
from dmlpy.problems.values import show as show
from dmlpy.problems.values import visible as visible
