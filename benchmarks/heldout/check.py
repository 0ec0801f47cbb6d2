#!/usr/bin/env python3
"""Check the held-out benchmark labels against their schema.

For every queries/*.yaml file this checks that:
  * id matches the file name, schemaId names a folder under schemas/;
  * the operation parses and validates against the schema (zero errors);
  * the operation uses no deprecated field;
  * every mustInclude entry exists in the schema (Type.field, or
    Type.field(arg:) with the argument defined on that field) and is used by
    the operation;
  * every field/argument the operation uses is in mustInclude, except the
    connection plumbing `XConnection.edges` and `XEdge.node` (and __typename);
  * every targetField exists and is selected by the operation, every
    targetType exists;
  * mustExclude names the schema's mutation root type;
  * the question text contains no camelCase identifier.

Needs graphql-core (3.2) and PyYAML. Usage: python3 check.py [QUERIES_DIR]
Exit status 0 when every file passes.
"""
import json
import os
import re
import sys

try:
    import yaml
    from graphql import (
        GraphQLInterfaceType,
        GraphQLObjectType,
        TypeInfo,
        TypeInfoVisitor,
        Visitor,
        build_client_schema,
        build_schema,
        parse,
        validate,
        visit,
    )
except ImportError as e:  # pragma: no cover
    sys.exit(f"missing dependency ({e}); pip install graphql-core pyyaml")

HERE = os.path.dirname(os.path.abspath(__file__))
COORD_RE = re.compile(r"^(\w+)\.(\w+)(?:\((\w+):\))?$")
CAMEL_RE = re.compile(r"\b[a-z]+[A-Z]\w*\b")


def load_schema(schema_id):
    d = os.path.join(HERE, "schemas", schema_id)
    sdl = os.path.join(d, "schema.graphql")
    if os.path.exists(sdl):
        with open(sdl, encoding="utf-8") as f:
            return build_schema(f.read())
    with open(os.path.join(d, "schema.json"), encoding="utf-8") as f:
        data = json.load(f)
    return build_client_schema(data.get("data", data))


def is_plumbing(parent_name, field_name):
    """Connection plumbing that the labels leave out (like WG's `nodes`)."""
    return (field_name == "edges" and parent_name.endswith("Connection")) or (
        field_name == "node" and parent_name.endswith("Edge")
    )


def used_coordinates(schema, doc):
    """Return (fields, args, deprecated) used by the operation, in document
    order. fields: 'Parent.field' where Parent is the type whose selection set
    holds the field (the `... on X` type inside an inline fragment)."""
    type_info = TypeInfo(schema)
    fields, args, deprecated = [], [], []

    class V(Visitor):
        def enter_field(self, node, *_):
            parent = type_info.get_parent_type()
            fdef = type_info.get_field_def()
            name = node.name.value
            if parent is None or fdef is None or name.startswith("__"):
                return
            coord = f"{parent.name}.{name}"
            if fdef.deprecation_reason:
                deprecated.append(coord)
            if coord not in fields:
                fields.append(coord)
            for a in node.arguments or ():
                ac = f"{coord}({a.name.value}:)"
                if ac not in args:
                    args.append(ac)

    visit(doc, TypeInfoVisitor(type_info, V()))
    return fields, args, deprecated


def expected_must(schema, doc):
    fields, args, _ = used_coordinates(schema, doc)
    keep = [c for c in fields if not is_plumbing(*c.split("."))]
    return keep + args


def coord_exists(schema, coord):
    m = COORD_RE.match(coord)
    if not m:
        return False
    t = schema.type_map.get(m.group(1))
    if not isinstance(t, (GraphQLObjectType, GraphQLInterfaceType)):
        return False
    f = t.fields.get(m.group(2))
    if f is None:
        return False
    return m.group(3) is None or m.group(3) in f.args


def check_file(path, schemas):
    errs = []
    with open(path, encoding="utf-8") as f:
        q = yaml.safe_load(f)
    stem = os.path.splitext(os.path.basename(path))[0]
    if q.get("id") != stem:
        errs.append(f"id {q.get('id')!r} != file name {stem!r}")
    sid = q.get("schemaId")
    if sid not in schemas:
        try:
            schemas[sid] = load_schema(sid)
        except OSError:
            return [f"unknown schemaId {sid!r}"]
    schema = schemas[sid]
    for key in ("query", "operation", "targetFields", "targetTypes", "mustInclude", "mustExclude", "notes"):
        if key not in q:
            errs.append(f"missing key {key}")
    if errs:
        return errs
    for word in CAMEL_RE.findall(q["query"]):
        errs.append(f"camelCase identifier in question text: {word}")
    try:
        doc = parse(q["operation"])
    except Exception as e:  # GraphQLSyntaxError
        return errs + [f"parse error: {e}"]
    for e in validate(schema, doc):
        errs.append(f"validation: {e.message}")
    if errs:
        return errs
    fields, args, deprecated = used_coordinates(schema, doc)
    for c in deprecated:
        errs.append(f"deprecated field used: {c}")
    used = set(fields) | set(args)
    must = q["mustInclude"] or []
    if not must:
        errs.append("empty mustInclude")
    if len(set(must)) != len(must):
        errs.append("duplicate mustInclude entries")
    for c in must:
        if not coord_exists(schema, c):
            errs.append(f"mustInclude not in schema: {c}")
        elif c not in used:
            errs.append(f"mustInclude not used by the operation: {c}")
    for c in expected_must(schema, doc):
        if c not in must:
            errs.append(f"used by the operation but missing from mustInclude: {c}")
    for c in q["targetFields"] or []:
        if not coord_exists(schema, c):
            errs.append(f"targetField not in schema: {c}")
        elif c not in fields:
            errs.append(f"targetField not selected by the operation: {c}")
    for t in q["targetTypes"] or []:
        if t not in schema.type_map:
            errs.append(f"targetType not in schema: {t}")
    mroot = schema.mutation_type.name if schema.mutation_type else None
    if mroot and mroot not in (q["mustExclude"] or []):
        errs.append(f"mustExclude lacks {mroot}")
    return errs


def main():
    qdir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "queries")
    files = sorted(
        os.path.join(qdir, n) for n in os.listdir(qdir) if n.endswith(".yaml")
    )
    schemas, failed, n_must = {}, 0, 0
    for p in files:
        errs = check_file(p, schemas)
        if errs:
            failed += 1
            for e in errs:
                print(f"FAIL {os.path.basename(p)}: {e}")
        else:
            with open(p, encoding="utf-8") as f:
                n_must += len(yaml.safe_load(f)["mustInclude"])
    print(f"{len(files)} files, {n_must} mustInclude entries in passing files")
    print(f"{len(files) - failed} passed, {failed} failed")
    return 1 if failed or not files else 0


if __name__ == "__main__":
    sys.exit(main())
