from marshmallow import fields

from connectivity.web.schema import Schema
from connectivity.web.validators import ENVIRONMENTS


class PingSchema(Schema):
    pong = fields.Boolean(required=True)
    environment = fields.String(required=True, metadata={"enum": list(ENVIRONMENTS)})
    server_time = fields.DateTime(required=True, format="iso",
                                  metadata={"description": "compare with the client clock"})


class WhoamiPartnerSchema(Schema):
    code = fields.String(required=True)
    name = fields.String(required=True)


class WhoamiKeySchema(Schema):
    key_id = fields.String(required=True)
    name = fields.String(required=True)
    environment = fields.String(required=True, metadata={"enum": list(ENVIRONMENTS)})
    requires_signature = fields.Boolean(required=True)
    expires_at = fields.DateTime(required=True, allow_none=True, format="iso")
    rate_limit_per_minute = fields.Integer(required=True)


class WhoamiSchema(Schema):
    partner = fields.Nested(WhoamiPartnerSchema, required=True)
    key = fields.Nested(WhoamiKeySchema, required=True)
    scopes = fields.List(fields.String(), required=True)
    mapped_properties = fields.Integer(
        required=True, metadata={"description": "count of the partner's mapped properties in "
                                                "the key's environment, paused ones included"})
