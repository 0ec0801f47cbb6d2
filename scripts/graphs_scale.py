#!/usr/bin/env python3
"""Generate N graphs for the multi-graph scale table (docs/serve.md, "Many graphs").

Each graph is a sample of one of the given schemas, renamed: graph i takes schema
i % len(schemas), keeps a random share of its object types (seeded by i), their
fields whose types were kept (or are scalars and enums), the arguments of scalar and
enum types, and a Query whose fields lead to kept types; every kept object and enum type
is renamed NAME_g{i}, so no two graphs share a type name. Writes DIR/g{i}.graphql and
DIR/graphs.toml (one [[graph]] per file, `index_root = "idx"`).

    python3 scripts/graphs_scale.py --out DIR --count 100 --share 0.1 \
        benchmarks/wg/schemas/github/schema.graphql benchmarks/wg/schemas/linear/schema.graphql

Needs graphql-core (`pip install graphql-core`).
"""
import argparse
import os
import random

from graphql import (
    GraphQLEnumType,
    GraphQLInterfaceType,
    GraphQLObjectType,
    GraphQLScalarType,
    build_schema,
    get_named_type,
)

BUILTIN = {"String", "Int", "Float", "Boolean", "ID"}


def type_ref(t, rename):
    """The SDL of a field type with the named type renamed."""
    s = str(t)
    n = get_named_type(t).name
    return s.replace(n, rename(n), 1) if n in s else s


def sample(schema, share, seed, suffix):
    rng = random.Random(seed)
    objects = sorted(
        n for n, t in schema.type_map.items()
        if isinstance(t, (GraphQLObjectType, GraphQLInterfaceType))
        and not n.startswith("__")
        and t is not schema.query_type
    )
    kept = set(rng.sample(objects, max(1, int(len(objects) * share))))
    enums = set()

    def leaf(t):
        nt = get_named_type(t)
        return isinstance(nt, (GraphQLScalarType, GraphQLEnumType))

    def usable(t):
        nt = get_named_type(t)
        return leaf(t) or nt.name in kept

    def rename(n):
        return f"{n}_g{suffix}" if (n in kept or n in enums) else n

    def fields_of(t, keep):
        out = []
        for fname, f in t.fields.items():
            if not keep(f.type):
                continue
            args = []
            for aname, a in f.args.items():
                if not leaf(a.type):
                    if str(a.type).endswith("!"):
                        break
                    continue
                args.append((aname, a))
            else:
                out.append((fname, f, args))
        return out

    body = []
    used_scalars = set()

    def field_lines(fields):
        lines = []
        for fname, f, args in fields:
            for t in [f.type] + [a.type for _, a in args]:
                nt = get_named_type(t)
                if isinstance(nt, GraphQLEnumType):
                    enums.add(nt.name)
                elif isinstance(nt, GraphQLScalarType) and nt.name not in BUILTIN:
                    used_scalars.add(nt.name)
            a = ", ".join(f"{an}: {type_ref(av.type, rename)}" for an, av in args)
            desc = (f.description or "").replace('"""', "'").strip()
            if desc:
                lines.append(f'  """{desc}"""')
            lines.append(f"  {fname}{'(' + a + ')' if a else ''}: {type_ref(f.type, rename)}")
        return lines

    query = fields_of(schema.query_type, usable)
    for name in sorted(kept):
        t = schema.type_map[name]
        fs = fields_of(t, usable)
        if not fs:
            fs = [("id_g", None, [])]
        body.append((name, t, fs))
    out = []
    for name, t, fs in body:
        if fs[0][1] is None:
            lines = ["  idG: ID"]
        else:
            lines = field_lines(fs)
        desc = (t.description or "").replace('"""', "'").strip()
        if desc:
            out.append(f'"""{desc}"""')
        out.append(f"type {rename(name)} {{")
        out.extend(lines)
        out.append("}")
    qlines = field_lines(query) or ["  ping: String"]
    out.append("type Query {")
    out.extend(qlines)
    out.append("}")
    for e in sorted(enums):
        values = " ".join(schema.type_map[e].values.keys())
        out.append(f"enum {rename(e)} {{ {values} }}")
    for s in sorted(used_scalars):
        out.append(f"scalar {s}")
    return "\n".join(out) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", required=True)
    p.add_argument("--count", type=int, required=True)
    p.add_argument("--share", type=float, default=0.1, help="share of object types kept")
    p.add_argument("schemas", nargs="+")
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    parsed = [build_schema(open(s).read(), assume_valid_sdl=True) for s in a.schemas]
    toml = ['index_root = "idx"', "", "[server]", "reload_poll_seconds = 0", ""]
    for i in range(a.count):
        sdl = sample(parsed[i % len(parsed)], a.share, i, i)
        with open(os.path.join(a.out, f"g{i}.graphql"), "w") as f:
            f.write(sdl)
        toml += ["[[graph]]", f'name = "g{i}"', f'schema = "g{i}.graphql"', ""]
    with open(os.path.join(a.out, "graphs.toml"), "w") as f:
        f.write("\n".join(toml))
    print(f"wrote {a.count} graphs to {a.out}")


if __name__ == "__main__":
    main()
