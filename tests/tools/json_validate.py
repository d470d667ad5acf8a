#!/usr/bin/env python3
"""json_validate.py SCHEMA DOC...: validates JSON documents against a JSON Schema. Uses the
jsonschema package when installed; otherwise a minimal validator for the keywords
docs/report-schema.json uses (type, required, properties, additionalProperties, items, enum,
const, minimum, pattern, oneOf, $ref to #/$defs/...). Exit 0 valid, 1 invalid."""
import json, re, sys

def minimal(schema, doc):
    errs = []
    def resolve(ref):
        node = schema
        for part in ref.lstrip('#/').split('/'):
            node = node[part]
        return node
    def tname(v):
        if v is None: return 'null'
        if isinstance(v, bool): return 'boolean'
        if isinstance(v, int): return 'integer'
        if isinstance(v, float): return 'number'
        if isinstance(v, str): return 'string'
        if isinstance(v, list): return 'array'
        return 'object'
    def check(s, v, path):
        if '$ref' in s:
            check(resolve(s['$ref']), v, path)
        if 'oneOf' in s:
            ok = 0
            for alt in s['oneOf']:
                before = len(errs)
                check(alt, v, path)
                ok += len(errs) == before
                del errs[before:]
            if ok != 1: errs.append('%s: matches %d of oneOf, not 1' % (path, ok))
        if 'type' in s:
            types = s['type'] if isinstance(s['type'], list) else [s['type']]
            t = tname(v)
            if not (t in types or (t == 'integer' and 'number' in types)):
                errs.append('%s: %s is not %s' % (path, t, types)); return
        if 'const' in s and v != s['const']: errs.append('%s: != const' % path)
        if 'enum' in s and v not in s['enum']: errs.append('%s: %r not in enum' % (path, v))
        if 'minimum' in s and isinstance(v, (int, float)) and not isinstance(v, bool) and v < s['minimum']:
            errs.append('%s: below minimum' % path)
        if 'pattern' in s and isinstance(v, str) and not re.search(s['pattern'], v):
            errs.append('%s: %r does not match %s' % (path, v, s['pattern']))
        if isinstance(v, dict):
            for k in s.get('required', []):
                if k not in v: errs.append('%s: missing %s' % (path, k))
            props = s.get('properties', {})
            for k, x in v.items():
                if k in props: check(props[k], x, path + '.' + k)
                elif s.get('additionalProperties') is False: errs.append('%s: unexpected %s' % (path, k))
                elif isinstance(s.get('additionalProperties'), dict): check(s['additionalProperties'], x, path + '.' + k)
        if isinstance(v, list) and 'items' in s:
            for i, x in enumerate(v): check(s['items'], x, '%s[%d]' % (path, i))
    check(schema, doc, '$')
    return errs

def main():
    schema = json.load(open(sys.argv[1]))
    bad = 0
    for p in sys.argv[2:]:
        doc = json.load(open(p))
        try:
            import jsonschema
            v = jsonschema.Draft202012Validator(schema)
            errs = [e.message + ' at ' + '/'.join(map(str, e.path)) for e in v.iter_errors(doc)]
        except ImportError:
            errs = []
        errs += minimal(schema, doc)
        for e in errs: print('%s: %s' % (p, e), file=sys.stderr)
        bad |= bool(errs)
    sys.exit(1 if bad else 0)

main()
