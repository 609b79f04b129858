-- name: find_partner(code)^
SELECT id, code, name FROM partners WHERE code = :code;
