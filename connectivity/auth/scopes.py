"""Scope names (exactly the specification's) and the presets keys are issued with."""

SCOPES = (
    "ari.read", "content.read", "booking.quote", "booking.write", "booking.read",
    "booking.cancel", "ari.write", "restriction.write", "reservation.write", "reservation.cancel",
)

PRESETS = {
    "pull": ("ari.read", "content.read", "booking.quote", "booking.write", "booking.read",
             "booking.cancel"),
    # No content.read: a channel manager that also wants the mapping endpoints asks for it.
    "push": ("ari.write", "restriction.write", "reservation.write", "reservation.cancel"),
    "none": (),
}

# Push keys write inventory and reservations, so they sign by default.
SIGNED_BY_DEFAULT = {"push"}


def scopes_for(preset: str, extra: tuple[str, ...] | list[str] = ()) -> list[str]:
    unknown = [s for s in extra if s not in SCOPES]
    if unknown:
        raise ValueError(f"unknown scope(s): {', '.join(unknown)}")
    wanted = set(PRESETS[preset]) | set(extra)
    return [s for s in SCOPES if s in wanted]
