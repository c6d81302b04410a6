"""OS::Heat::RandomString: a random string (password, secret) generated once, at create."""

from __future__ import annotations

import random
import string
from collections.abc import Collection, Iterable, Mapping
from typing import Any

from hearth.common.errors import StackValidationFailed
from hearth.resources.attributes import AttributeSchema
from hearth.resources.base import Resource
from hearth.resources.definition import ValidationScope
from hearth.resources.properties import Properties
from hearth.resources.schema import PropertySchema
from hearth.resources.support import DEPRECATED, HIDDEN, SupportStatus
from hearth.template.constraints import AllowedValues, Range

LENGTH = "length"
SEQUENCE = "sequence"
CHARACTER_CLASSES = "character_classes"
CHARACTER_SEQUENCES = "character_sequences"
SALT = "salt"
CLASS = "class"
MIN = "min"
VALUE = "value"

# Named character classes, in the order Heat lists them.
CHARACTER_CLASS_MEMBERS: dict[str, str] = {
    "lettersdigits": string.ascii_letters + string.digits,
    "letters": string.ascii_letters,
    "lowercase": string.ascii_lowercase,
    "uppercase": string.ascii_uppercase,
    "digits": string.digits,
    "hexdigits": string.digits + "ABCDEF",
    "octdigits": string.octdigits,
}
DEFAULT_CLASS = "lettersdigits"

_rng = random.SystemRandom()


def _min_schema(what: str) -> PropertySchema:
    return PropertySchema(
        PropertySchema.INTEGER,
        f"The minimum number of characters from this {what} that will be in the generated "
        "string.",
        default=1,
        constraints=[Range(1, 512)],
    )


def generate(length: int, pools: Iterable[tuple[str, int]]) -> str:
    """``length`` characters: at least ``minimum`` from each pool, the rest from any pool,
    in random order."""
    chosen: list[str] = []
    every: set[str] = set()
    for pool, minimum in pools:
        members = sorted(set(pool))
        every.update(members)
        chosen.extend(_rng.choice(members) for _ in range(minimum))
    fill = sorted(every)
    chosen.extend(_rng.choice(fill) for _ in range(max(0, length - len(chosen))))
    return "".join(_rng.sample(chosen, length))


class RandomString(Resource):
    """A string drawn from character classes and sequences, stored redacted.

    Changing any property (``salt`` exists for that) replaces the resource, which draws a new
    string.
    """

    type_description = (
        "A resource which generates a random string.\n\n"
        "This is useful for configuring passwords and secrets on services. Random\n"
        "string can be generated from specified character sequences, which means\n"
        "that all characters will be randomly chosen from specified sequences, or\n"
        "with some classes, e.g. letterdigits, which means that all character will\n"
        "be randomly chosen from union of ascii letters and digits. Output string\n"
        "will be randomly generated string with specified length (or with length of\n"
        "32, if length property doesn't specified)."
    )
    support_status = SupportStatus(version="2014.1")
    handlers_block = False
    properties_schema = {
        LENGTH: PropertySchema(
            PropertySchema.INTEGER,
            "Length of the string to generate.",
            default=32,
            constraints=[Range(1, 512)],
        ),
        SEQUENCE: PropertySchema(
            PropertySchema.STRING,
            "Sequence of characters to build the random string from.",
            constraints=[AllowedValues(list(CHARACTER_CLASS_MEMBERS))],
            support_status=SupportStatus(
                status=HIDDEN,
                version="5.0.0",
                previous_status=SupportStatus(
                    status=DEPRECATED,
                    message=f"Use property {CHARACTER_CLASSES}.",
                    version="2014.2",
                ),
            ),
        ),
        CHARACTER_CLASSES: PropertySchema(
            PropertySchema.LIST,
            "A list of character class and their constraints to generate the random string "
            "from.",
            schema=PropertySchema(
                PropertySchema.MAP,
                schema={
                    CLASS: PropertySchema(
                        PropertySchema.STRING,
                        f"A character class and its corresponding {MIN} constraint to "
                        "generate the random string from.",
                        constraints=[AllowedValues(list(CHARACTER_CLASS_MEMBERS))],
                        default=DEFAULT_CLASS,
                    ),
                    MIN: _min_schema("character class"),
                },
            ),
            default=[{CLASS: DEFAULT_CLASS, MIN: 1}],
        ),
        CHARACTER_SEQUENCES: PropertySchema(
            PropertySchema.LIST,
            "A list of character sequences and their constraints to generate the random "
            "string from.",
            schema=PropertySchema(
                PropertySchema.MAP,
                schema={
                    SEQUENCE: PropertySchema(
                        PropertySchema.STRING,
                        f"A character sequence and its corresponding {MIN} constraint to "
                        "generate the random string from.",
                        required=True,
                    ),
                    MIN: _min_schema("sequence"),
                },
            ),
        ),
        SALT: PropertySchema(
            PropertySchema.STRING,
            "Value which can be set or changed on stack update to trigger the resource for "
            "replacement with a new random string. The salt value itself is ignored by the "
            "random generator.",
        ),
    }
    attributes_schema = {
        VALUE: AttributeSchema(
            "The random string generated by this resource. This value is also available by "
            "referencing the resource.",
            cache_mode=AttributeSchema.CACHE_NONE,
            type=AttributeSchema.STRING,
        ),
    }

    @classmethod
    def build_properties(
        cls, data: Mapping[str, Any] | None, *, unresolved: Collection[str] = frozenset()
    ) -> Properties:
        data = dict(data or {})
        sequence = data.get(SEQUENCE)
        if sequence and SEQUENCE not in unresolved:
            # The old ``sequence`` property is one more character class.
            del data[SEQUENCE]
            classes = data.get(CHARACTER_CLASSES)
            if classes is None or isinstance(classes, list):
                data[CHARACTER_CLASSES] = [*(classes or []), {CLASS: sequence, MIN: 1}]
        return Properties(cls.properties_schema, data, unresolved=unresolved)

    @classmethod
    def validate(cls, properties: Properties, scope: ValidationScope) -> None:
        def minimums(items: list[Mapping[str, Any]] | None) -> int:
            return sum(item[MIN] for item in items) if items else 0

        wanted = minimums(properties[CHARACTER_SEQUENCES]) + minimums(
            properties[CHARACTER_CLASSES]
        )
        if wanted > properties[LENGTH]:
            raise StackValidationFailed(
                "Length property cannot be smaller than combined character class and "
                "character sequence minimums"
            )

    def handle_create(self) -> None:
        pools = [(s[SEQUENCE], s[MIN]) for s in self.properties[CHARACTER_SEQUENCES] or []]
        pools += [
            (CHARACTER_CLASS_MEMBERS[c[CLASS]], c[MIN])
            for c in self.properties[CHARACTER_CLASSES] or []
        ]
        self.data_set(VALUE, generate(self.properties[LENGTH], pools), redact=True)
        self.resource_id_set(self.physical_resource_name())

    def _resolve_attribute(self, name: str) -> Any:
        if name == VALUE:
            return self.data().get(VALUE)
        return None

    def get_reference_id(self) -> str | None:
        if self.resource_id is None:
            return self.name
        return self.data().get(VALUE)
