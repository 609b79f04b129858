"""The layout of sql/queries (sql/README.md): one folder per package that runs SQL, every
statement on the README's map, and the ARI acceptance order written only in migration 0016."""

from __future__ import annotations

import re
from pathlib import Path

from connectivity.store.queries import MIGRATIONS_DIR, QUERIES_DIR

PACKAGES = Path(__file__).resolve().parents[2] / "connectivity"
README = QUERIES_DIR.parent / "README.md"
NAME = re.compile(r"^-- name: (\w+)", re.MULTILINE)


def statements() -> set[tuple[str, str, str]]:
    return {(path.parent.name, path.name, name)
            for path in QUERIES_DIR.glob("*/*.sql")
            for name in NAME.findall(path.read_text())}


def test_each_folder_is_a_package_that_runs_its_statements():
    folders = {path.name for path in QUERIES_DIR.iterdir() if path.is_dir()}
    packages = {path.parent.name for path in PACKAGES.glob("*/__init__.py")}
    assert folders - packages == set(), "name a query folder after the package that runs it"
    assert not list(QUERIES_DIR.glob("*.sql")), "a statement file belongs in its package's folder"


def test_every_statement_is_on_the_readme_map_under_its_folder_and_file():
    mapped, folder = set(), None
    for line in README.read_text().splitlines():
        heading = re.match(r"### `(\w+)/`", line)
        if heading:
            folder = heading[1]
        row = re.match(r"\| (\w+\.sql) \| (\w+) \|", line)
        if row and folder:
            mapped.add((folder, row[1], row[2]))
    assert statements() - mapped == set(), "add these to sql/README.md"
    assert mapped - statements() == set(), "these are on sql/README.md but in no query file"


def test_the_ari_acceptance_order_is_written_only_in_its_migration():
    # Queries call ari_item_order and its inverses (0016) instead of restating the arithmetic.
    restated = [path.relative_to(QUERIES_DIR) for path in QUERIES_DIR.glob("*/*.sql")
                if "8192" in path.read_text()]
    assert restated == []
    assert "ari_item_order" in (MIGRATIONS_DIR / "0016_ari_acceptance_order.sql").read_text()
