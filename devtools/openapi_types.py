"""TypeScript declarations of the published OpenAPI description's schemas, for the TypeScript
client (clients/typescript/src/schema.d.ts, checked in):

    flask --app app openapi print | python -m devtools.openapi_types > clients/typescript/src/schema.d.ts

tests/system/clients/test_typescript_client.py fails when the checked-in file is not what this
makes of the current description: a change of the description then shows in the client's types.
Only what the description uses is covered (objects, arrays, enums, nullable, $ref, allOf, anyOf);
anything else fails loudly rather than becoming `unknown` unnoticed."""

from __future__ import annotations

import json
import sys

HEADER = ("// Generated from the service's OpenAPI description by devtools/openapi_types.py:\n"
          "// do not edit; regenerate (see that module) when the description changes.\n"
          "// Amounts are JSON numbers; dates (`format: date`) and timestamps (`date-time`) are\n"
          "// ISO 8601 strings.\n\n")
SCALARS = {"string": "string", "integer": "number", "number": "number", "boolean": "boolean"}
KNOWN = {"type", "properties", "required", "additionalProperties", "items", "enum", "$ref",
         "nullable", "format", "description", "example", "examples", "minimum", "maximum",
         "minLength", "maxLength", "minItems", "maxItems", "pattern", "default", "allOf", "anyOf",
         "readOnly", "writeOnly", "title", "exclusiveMinimum", "exclusiveMaximum", "deprecated"}


def _comment(schema: dict, indent: str) -> str:
    text = schema.get("description")
    if not text:
        return ""
    lines = text.replace("*/", "*\\/").splitlines()
    return indent + "/** " + f"\n{indent} * ".join(lines) + " */\n"


def type_of(schema: dict, indent: str = "") -> str:
    unknown = set(schema) - KNOWN
    if unknown:
        raise ValueError(f"schema keywords not handled: {sorted(unknown)} in {schema}")
    if "$ref" in schema:
        text = schema["$ref"].rsplit("/", 1)[1]
    elif "allOf" in schema:
        text = " & ".join(type_of(part, indent) for part in schema["allOf"])
    elif "anyOf" in schema:
        text = " | ".join(type_of(part, indent) for part in schema["anyOf"])
    elif "enum" in schema:
        text = " | ".join(json.dumps(value) for value in schema["enum"])
    elif schema.get("type") == "array":
        text = f"Array<{type_of(schema.get('items', {}), indent)}>"
    elif schema.get("type") == "object" or "properties" in schema:
        text = _object(schema, indent)
    elif schema.get("type") in SCALARS:
        text = SCALARS[schema["type"]]
    elif not schema.get("type"):
        text = "unknown"
    else:
        raise ValueError(f"schema type not handled: {schema}")
    return f"{text} | null" if schema.get("nullable") else text


def _object(schema: dict, indent: str) -> str:
    inner = indent + "  "
    required = set(schema.get("required", ()))
    members = []
    for name, prop in schema.get("properties", {}).items():
        optional = "" if name in required else "?"
        members.append(f"{_comment(prop, inner)}{inner}{name}{optional}: {type_of(prop, inner)};")
    extra = schema.get("additionalProperties", False if schema.get("properties") else True)
    if extra is not False:
        value = "unknown" if extra in (True, {}) else type_of(extra, inner)
        members.append(f"{inner}[key: string]: {value};")
    return "{\n" + "\n".join(members) + f"\n{indent}}}" if members else "Record<string, never>"


def typescript_of(description: dict) -> str:
    out = [HEADER, f"// {description['info']['title']} {description['info']['version']}\n"]
    for name, schema in description["components"]["schemas"].items():
        out.append(f"\n{_comment(schema, '')}export type {name} = {type_of(schema)};\n")
    return "".join(out)


if __name__ == "__main__":
    sys.stdout.write(typescript_of(json.load(sys.stdin)))
