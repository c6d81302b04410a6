"""OS::Heat::MultipartMime: several configs (or inline texts) as one multipart MIME message,
what cloud-init reads from a server's user_data."""

from __future__ import annotations

import email
import os
import uuid
from email.message import Message
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText
from typing import Any

from hearth.common.errors import NotFound
from hearth.resources.builtin.software.config import (
    CONFIG,
    GROUP,
    UNGROUPED,
    ConfigResource,
)
from hearth.resources.schema import PropertySchema
from hearth.resources.support import SupportStatus
from hearth.template.constraints import AllowedValues

PARTS = "parts"
FILENAME = "filename"
TYPE = "type"
SUBTYPE = "subtype"

TEXT = "text"
MULTIPART = "multipart"
PART_TYPES = (TEXT, MULTIPART)


def looks_like_uuid(value: Any) -> bool:
    """Whether ``value`` spells a UUID (hyphens, braces, ``urn:uuid:`` and case aside), the
    test by which a part's ``config`` is taken for the id of a stored config."""
    if not isinstance(value, str):
        return False
    try:
        parsed = uuid.UUID(value)
    except ValueError:
        return False
    bare = value.replace("urn:", "").replace("uuid:", "").strip("{}").replace("-", "").lower()
    return parsed.hex == bare


def text_part(content: str, subtype: str | None, filename: str | None) -> MIMEText:
    """One text part: plain unless ``subtype`` (or else the filename's stem) says otherwise,
    us-ascii when the content allows it (utf-8 otherwise), an attachment when named."""
    if not subtype and filename:
        subtype = os.path.splitext(filename)[0]
    try:
        content.encode("us-ascii")
        charset = "us-ascii"
    except UnicodeEncodeError:
        charset = "utf-8"
    if subtype:
        part = MIMEText(content, _subtype=subtype, _charset=charset)
    else:
        part = MIMEText(content, _charset=charset)
    if filename:
        part.add_header("Content-Disposition", "attachment", filename=filename)
    return part


def split_message(document: str) -> list[MIMEText]:
    """The parts of a multipart message as new text parts (a message that is not multipart
    gives none). Each part's payload is taken as it is written, encoded or not."""
    message = email.message_from_string(document)
    if not message.is_multipart():
        return []
    parts: list[MIMEText] = []
    for sub in message.get_payload():
        if isinstance(sub, Message):
            payload: Any = sub.get_payload()
            parts.append(text_part(payload, sub.get_content_subtype(), sub.get_filename()))
    return parts


class MultipartMime(ConfigResource):
    """Joins inline texts and stored configs into one MIME message, stored as a config."""

    type_description = (
        "Assembles a collection of software configurations as a multi-part mime.\n\n"
        "Parts in the message can be populated with inline configuration or\n"
        "references to other config resources. If the referenced resource is itself\n"
        "a valid multi-part mime message, that will be broken into parts and\n"
        "those parts appended to this message.\n\n"
        "The resulting multi-part mime message will be stored by the configs API\n"
        "and can be referenced in properties such as OS::Nova::Server user_data.\n\n"
        "This resource is generally used to build a list of cloud-init\n"
        "configuration elements including scripts and cloud-config. Since\n"
        "cloud-init is boot-only configuration, any changes to the definition\n"
        "will result in the replacement of all servers which reference it."
    )
    support_status = SupportStatus(version="2014.1")
    properties_schema = {
        GROUP: PropertySchema(
            PropertySchema.STRING,
            "Namespace to group this multi-part configs by when delivered to a server. This "
            "may imply what configuration tool is going to perform the configuration.",
            default=UNGROUPED,
            support_status=SupportStatus(version="14.0.0"),
        ),
        PARTS: PropertySchema(
            PropertySchema.LIST,
            "Parts belonging to this message.",
            default=[],
            schema=PropertySchema(
                PropertySchema.MAP,
                schema={
                    CONFIG: PropertySchema(
                        PropertySchema.STRING,
                        "Content of part to attach, either inline or by referencing the ID "
                        "of another software config resource.",
                        required=True,
                    ),
                    FILENAME: PropertySchema(
                        PropertySchema.STRING, "Optional filename to associate with part."
                    ),
                    TYPE: PropertySchema(
                        PropertySchema.STRING,
                        "Whether the part content is text or multipart.",
                        default=TEXT,
                        constraints=[AllowedValues(list(PART_TYPES))],
                    ),
                    SUBTYPE: PropertySchema(
                        PropertySchema.STRING, "Optional subtype to specify with the type."
                    ),
                },
            ),
        ),
    }

    def _content(self, reference: str) -> Any:
        """A part's ``config``: the body of the stored config it names, else itself."""
        if looks_like_uuid(reference):
            try:
                return self.context.software.show_config(reference)[CONFIG]
            except NotFound:
                pass
        return reference

    def message(self) -> str:
        parts: list[MIMEText] = []
        for item in self.properties[PARTS]:
            content = self._content(item[CONFIG])
            if (item.get(TYPE) or TEXT) == MULTIPART:
                parts.extend(split_message(content))
            else:
                parts.append(text_part(content, item.get(SUBTYPE), item.get(FILENAME)))
        return MIMEMultipart(_subparts=parts).as_string()

    def handle_create(self) -> None:
        self.store_config(group=self.properties[GROUP], config=self.message())
