#!/usr/bin/python3
"""Writes decodeerr_cases.json: request bodies and what the reference Ironic's
body decoder says about each, for decodeerr_test.go.

Run with Debian's Python (the one the reference Ironic runs on):

    /usr/bin/python3 internal/pyjson/testdata/gen_decodeerr.py

The expected outcome of every case comes from webob's Request.json, the call
Ironic makes (ironic/api/method.py, pecan.request.json): with simplejson
installed that is simplejson.loads(body.decode('utf-8')) with simplejson's C
scanner. Each case records the exception class name and str(exception), or
null when the body decodes.

RecursionError depends on how deep the caller's stack already is. The reference
API decodes 869 nested arrays/objects and fails on the 870th (measured with
bodies of n nested arrays or objects against ironic.cmd.singleprocess, 21.4,
on POST /v1/chassis, /v1/nodes, /v1/ports, PUT /v1/nodes/x/traits and
PATCH /v1/nodes/x). This script sets the recursion limit so that the same
depth is the last to decode here, and checks it.

With --reference URL (e.g. http://127.0.0.1:6390, noauth) it also POSTs every
malformed body to URL/v1/chassis and checks that the reference answers the same
message (faultstring), or 400 for bodies that are not UTF-8. Bodies that
decode are not sent (they would create chassis).
"""

import base64
import glob
import json
import os
import random
import sys
import urllib.error
import urllib.request

import webob

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, '..', '..', '..'))
CORPUS = os.path.join(REPO, 'test', 'differential', 'testdata')
OUT = os.path.join(HERE, 'decodeerr_cases.json')

REFERENCE_MAX_NESTING = 869  # pyjson.MaxNesting


def outcome(body):
    """(exception class name, str(exception)) of Ironic's read of body, or None."""
    req = webob.Request.blank('/', method='POST', body=body,
                              content_type='application/json')
    try:
        req.json
    except Exception as e:  # noqa: BLE001 - every class is a recorded outcome
        return type(e).__name__, str(e)
    return None


def outcomes(bodies):
    """outcome() of each body, with the recursion limit set so that
    REFERENCE_MAX_NESTING is the deepest nesting that decodes. Calibration
    and evaluation call outcome() from this same frame, so the stack below
    the decoder is the same for both."""
    def nested(depth):
        return b'[' * depth + b']' * depth
    lo, hi = 1, sys.getrecursionlimit()
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if outcome(nested(mid)) is None:
            lo = mid
        else:
            hi = mid - 1
    sys.setrecursionlimit(sys.getrecursionlimit() + REFERENCE_MAX_NESTING - lo)
    if (outcome(nested(REFERENCE_MAX_NESTING)) is not None
            or outcome(nested(REFERENCE_MAX_NESTING + 1)) is None):
        sys.exit('could not calibrate the recursion limit')
    results = []
    for b in bodies:  # not a comprehension: in 3.11 that is one frame deeper
        results.append(outcome(b))
    return results


# A case is (name, pieces): pieces is a list of (bytes, repeat) joined in
# order, so that megabyte bodies stay small in the JSON file.
def one(name, body):
    return name, [(body, 1)]


def corpus_cases():
    """The malformed bodies of the differential corpus, with the faultstring
    deviations.json expects for them."""
    with open(os.path.join(CORPUS, 'deviations.json')) as f:
        expected = {d['id']: d['body']['error_message']['faultstring']
                    for d in json.load(f)
                    if isinstance(d.get('body'), dict)
                    and isinstance(d['body'].get('error_message'), dict)
                    and 'faultstring' in d['body']['error_message']}
    cases, checks = [], {}
    for path in sorted(glob.glob(os.path.join(CORPUS, 'corpus', '*.json'))):
        with open(path) as f:
            entries = json.load(f)
        for e in entries:
            eid = e.get('id', '')
            if not (eid.startswith('bad-json-') or eid in (
                    'form-content-type-chassis-create', 'oversized-malformed')):
                continue
            raw = e['raw_body']
            name = 'corpus/' + eid
            if '{{pad}}' in raw:
                before, after = raw.split('{{pad}}')
                pieces = [(before.encode(), 1), (b'x', e['pad']), (after.encode(), 1)]
            else:
                pieces = [(raw.encode(), 1)]
            cases.append((name, pieces))
            if eid in expected:
                checks[name] = expected[eid]
    return cases, checks


def valid_cases():
    c = [
        one('null', b'null'), one('true', b'true'), one('false', b'false'),
        one('zero', b'0'), one('minus zero', b'-0'), one('int', b'12345'),
        one('negative int', b'-987'), one('float', b'3.25'), one('exp', b'1e5'),
        one('exp upper signed', b'-2.5E-3'), one('exp plus', b'7e+10'),
        one('huge float', b'1e999'), one('NaN', b'NaN'), one('Infinity', b'Infinity'),
        one('-Infinity', b'-Infinity'), one('string', b'"abc"'), one('empty string', b'""'),
        one('escapes', b'"\\" \\\\ \\/ \\b \\f \\n \\r \\t"'),
        one('unicode escape', b'"\\u00e9\\u20AC"'),
        one('surrogate pair escape', b'"\\ud83d\\ude00"'),
        one('lone high surrogate escape', b'"\\ud800"'),
        one('lone low surrogate escape', b'"\\udc00x"'),
        one('high surrogate then non-low escape', b'"\\ud800\\u0041"'),
        one('utf-8 text', '"żółw ☃ 😀"'.encode()),
        one('del and nbsp', '"\x7f\u00a0"'.encode()),
        one('empty array', b'[]'), one('empty object', b'{}'),
        one('spaced empties', b' [ ] '), one('spaced empty object', b'{ \n\t\r }'),
        one('array', b'[1, "a", null, true, false, 2.5, [], {}]'),
        one('object', b'{"a": 1, "b": [1, 2], "c": {"d": null}}'),
        one('pretty', b'{\n  "driver": "fake-hardware",\n  "name": "n1"\n}\n'),
        one('node create', b'{"driver": "fake-hardware", "name": "node-1", "properties": {"cpus": 4}}'),
        one('patch', b'[{"op": "add", "path": "/extra/foo", "value": "bar"}]'),
        one('no spaces', b'{"a":[1,2,{"b":"c"}],"d":-1.5e-3}'),
        one('leading trailing ws', b' \t\r\n{"a": 1} \t\r\n'),
        one('bom', b'\xef\xbb\xbf{"a": 1}'),
        one('bom then spaces', b'\xef\xbb\xbf  []'),
        one('latin-1 decoded bom', b'\xc3\xaf\xc2\xbb\xc2\xbf[1]'),
        one('duplicate keys', b'{"a": 1, "a": 2}'),
        one('unicode key', '{"ключ": "значение"}'.encode()),
        one('escaped key', b'{"\\u0041\\n": 1}'),
        ('int 4300 digits', [(b'9', 4300)]),
        ('negative int 4300 digits', [(b'-', 1), (b'9', 4300)]),
        ('float 5000 digits', [(b'1', 5000), (b'.5', 1)]),
        ('exp int 5000 digits', [(b'1', 5000), (b'e1', 1)]),
        one('nan in array', b'[NaN, Infinity, -Infinity]'),
        one('nested mix', b'[[{"a": [[]]}], {"b": {"c": [1]}}]'),
        ('deep arrays at limit', [(b'[', REFERENCE_MAX_NESTING), (b']', REFERENCE_MAX_NESTING)]),
        ('deep objects at limit', [(b'{"a":', REFERENCE_MAX_NESTING - 1), (b'{}', 1),
                                   (b'}', REFERENCE_MAX_NESTING - 1)]),
        ('deep mixed at limit', [(b'[{"k":', REFERENCE_MAX_NESTING // 2), (b'[]', 1),
                                 (b'}]', REFERENCE_MAX_NESTING // 2)]),
        ('big string', [(b'"', 1), (b'x', 1 << 20), (b'"', 1)]),
        ('long array', [(b'[', 1), (b'1,', 10000), (b'1]', 1)]),
        one('slash escape only', b'"\\/"'),
        one('number then ws', b'5 '),
        one('string with quote escapes in object', b'{"a\\"b": "c\\\\"}'),
    ]
    return c


def malformed_cases():
    c = [
        # Empty and blank.
        one('empty', b''), one('space', b' '), one('newlines', b'\n\n'),
        one('tab', b'\t'),
        # Top-level junk.
        one('word', b'not json'), one('form body', b'description=x'),
        one('single quotes', b"{'a': 1}"), one('python None', b'None'),
        one('python True', b'True'), one('nul', b'nul'), one('tru', b'tru'),
        one('fals', b'fals'), one('nan lower', b'nan'), one('inf', b'Inf'),
        one('-Inf', b'-Inf'), one('-Infinit', b'-Infinit'), one('NaN prefix', b'Na'),
        one('closing bracket', b']'), one('closing brace', b'}'), one('colon', b':'),
        one('comma', b','), one('bom only', b'\xef\xbb\xbf'),
        one('bom after space', b' \xef\xbb\xbf{}'), one('two boms', b'\xef\xbb\xbf\xef\xbb\xbf{}'),
        one('latin-1 bom partial', b'\xc3\xaf\xc2\xbb{}'),
        one('zero width space', '\u200b{}'.encode()),
        one('nbsp before value', '\u00a0{}'.encode()),
        one('vertical tab', b'\x0b[]'), one('form feed', b'\x0c[]'),
        # Numbers.
        one('minus', b'-'), one('minus space', b'- 1'), one('minus letter', b'-a'),
        one('plus', b'+1'), one('leading dot', b'.5'), one('leading zero', b'01'),
        one('minus leading zero', b'-01'), one('trailing dot', b'1.'),
        one('dot exp', b'1.e5'), one('bare exp', b'1e'), one('exp sign', b'1e+'),
        one('exp sign letter', b'1e-x'), one('double dot', b'1.2.3'),
        one('hex', b'0x1F'), one('underscore', b'1_000'), one('number then word', b'1e5x'),
        one('array minus', b'[-]'), one('array trailing dot', b'[1.]'),
        one('array exp', b'[1e]'), one('object leading zero', b'{"a": 012}'),
        ('int 4301 digits', [(b'9', 4301)]), ('negative int 4301 digits', [(b'-', 1), (b'9', 4301)]),
        ('int 5000 digits in array', [(b'[1, ', 1), (b'1', 5000), (b']', 1)]),
        ('big int then syntax error', [(b'[', 1), (b'2', 4400), (b' x', 1)]),
        ('syntax error before big int', [(b'[x, ', 1), (b'2', 4400), (b']', 1)]),
        one('fullwidth digit', '１'.encode()), one('arabic digit', '[٣]'.encode()),
        # Literals.
        one('truex', b'truex'), one('nullnull', b'nullnull'), one('NaNa', b'NaNa'),
        one('array tru', b'[tru]'), one('object nul', b'{"a": nul}'),
        one('array Infinityy', b'[Infinityy]'),
        # Arrays.
        one('open bracket', b'['), one('open bracket space', b'[ '),
        one('open bracket newline', b'[\n'), one('array one', b'[1'),
        one('array one space', b'[1 '), one('array comma', b'[1,'),
        one('array comma space', b'[1, '), one('array trailing comma', b'[1,]'),
        one('array trailing comma 2', b'[1, 2, ]'), one('array leading comma', b'[,1]'),
        one('array double comma', b'[1,,2]'), one('array missing comma', b'[1 2]'),
        one('array strings missing comma', b'["a" "b"]'), one('array colon', b'[1: 2]'),
        one('array closed by brace', b'[1}'), one('array open closed by brace', b'[}'),
        one('array extra close', b'[1]]'), one('nested unclosed', b'[[1, 2]'),
        one('nested unclosed deep', b'[[[[[[[[[['), one('array of object unclosed', b'[{"a": 1}'),
        one('array semicolon', b'[1; 2]'),
        # Objects.
        one('open brace', b'{'), one('open brace space', b'{ '), one('open brace newline', b'{\n'),
        one('object number key', b'{1: 2}'), one('object bare key', b'{a: 1}'),
        one('object single quote key', b"{'a': 1}"), one('object comma first', b'{,}'),
        one('object key only', b'{"a"'), one('object key space', b'{"a" '),
        one('object key no colon', b'{"a" 1}'), one('object key equals', b'{"a" = 1}'),
        one('object colon only', b'{"a":'), one('object colon space', b'{"a": '),
        one('object no value', b'{"a": }'), one('object value', b'{"a": 1'),
        one('object value space', b'{"a": 1 '), one('object comma', b'{"a": 1,'),
        one('object comma space', b'{"a": 1, '), one('object trailing comma', b'{"a": 1,}'),
        one('object missing comma', b'{"a": 1 "b": 2}'), one('object double comma', b'{"a": 1,, "b": 2}'),
        one('object closed by bracket', b'{"a": 1]'), one('object extra close', b'{"a": 1}}'),
        one('object nested unclosed', b'{"a": {"b": 1}'), one('object bad second key', b'{"a": 1, b: 2}'),
        one('object key unterminated', b'{"abc'), one('object array value unclosed', b'{"a": [1, 2}'),
        one('object unicode before error', '{"żółw": 1 x}'.encode()),
        one('object emoji before error', '{"😀😀": 1,}'.encode()),
        # Strings.
        one('quote', b'"'), one('unterminated', b'"abc'), one('unterminated in array', b'["abc'),
        one('unterminated after escape', b'"a\\"'), one('backslash at end', b'"a\\'),
        one('newline in string', b'"a\nb"'), one('tab in string', b'"a\tb"'),
        one('cr in string', b'"\r"'), one('nul in string', b'"\x00"'), one('x01 in string', b'"a\x01b"'),
        one('x1f in string', b'"\x1f"'), one('newline at end of string', b'"a\n'),
        one('control in key', b'{"a\x02": 1}'), one('control after escape', b'"\\n\x03"'),
        one('bad escape q', b'"a\\q"'), one('bad escape x', b'"\\x41"'), one('bad escape space', b'"\\ "'),
        one('bad escape 0', b'"\\0"'), one('bad escape in key', b'{"a\\q": 1}'),
        one('bad escape non-ascii', '"\\é"'.encode()), one('bad escape then control', b'"\\a\n"'),
        one('short unicode escape', b'"\\u12"'), one('unicode escape bad digit', b'"\\u12x4"'),
        one('unicode escape 0x', b'"\\u0x12"'), one('unicode escape at end', b'"\\u1234'),
        one('unicode escape nearly at end', b'"\\u123'), one('unicode escape one after', b'"\\u1234x'),
        one('unicode escape upper U', b'"\\U1234"'), one('unicode escape fullwidth', '"\\u１２３４"'.encode()),
        one('surrogate second bad digits', b'"\\ud800\\uzzzz"'), one('surrogate second short', b'"\\ud800\\u12"'),
        one('surrogate second 0x', b'"\\ud800\\u0x12"'), one('surrogate pair at end', b'"\\ud800\\udc00'),
        one('surrogate pair one after', b'"\\ud800\\udc00x'), one('surrogate second bad escape', b'"\\ud800\\q"'),
        one('surrogate then unterminated', b'"\\ud800'), one('high surrogate twice bad', b'"\\ud800\\ud800\\uqqqq"'),
        one('string then junk', b'"a" b'), one('string unicode then control', '"żółw\x05"'.encode()),
        one('emoji then bad escape', '["😀", "\\k"]'.encode()),
        # Extra data.
        one('two numbers', b'1 2'), one('object then word', b'{} x'), one('array then comma', b'[1],'),
        one('two objects', b'{"a": 1}{"b": 2}'), one('two strings lines', b'"a"\n"b"'),
        one('value then nul char', b'1\x00'), one('extra after newline', b'{}\n\n  x'),
        one('extra unicode', '{} ☃'.encode()),
        # Lines and columns.
        one('error on line 3', b'{\n  "a": 1,\n  "b" 2\n}'),
        one('error at line start', b'[1,\n2,\n]'), one('error after crlf', b'{\r\n"a": 1\r\n,}'),
        one('error on line 5', b'[1\n,\n2\n\nx'), one('newlines then missing comma', b'\n\n  [1,\n 2 3]'),
        one('unicode then newline error', '["ą",\n "ę" "x"]'.encode()),
        one('cr only lines', b'[1,\r2\r,]'),
        # Not UTF-8.
        one('ff', b'\xff'), one('ff in string', b'"\xff"'), one('fe after value', b'[1] \xfe'),
        one('lone continuation', b'"\x80"'), one('overlong c0', b'"\xc0\xaf"'), one('overlong c1', b'\xc1\x81'),
        one('truncated 2-byte at end', b'"\xc3'), one('2-byte bad continuation', b'"\xc3A"'),
        one('truncated 3-byte at end', b'"\xe2\x82'), one('truncated 3-byte one at end', b'"\xe2'),
        one('3-byte bad third', b'"\xe2\x82A"'), one('3-byte bad second', b'"\xe2A\x82"'),
        one('e0 overlong', b'"\xe0\x80\x80"'), one('e0 overlong at end', b'"\xe0\x80'),
        one('surrogate ed a0', b'"\xed\xa0\x80"'), one('surrogate ed at end', b'\xed\xa0'),
        one('truncated 4-byte', b'"\xf0\x9f\x98'), one('truncated 4-byte 2', b'"\xf0\x9f'),
        one('4-byte bad fourth', b'"\xf0\x9f\x98A"'), one('4-byte bad third', b'"\xf0\x9fA\x80"'),
        one('f0 overlong', b'"\xf0\x80\x80\x80"'), one('f4 too big', b'"\xf4\x90\x80\x80"'),
        one('f5', b'"\xf5\x80\x80\x80"'), one('latin-1 body', '{"name": "café"}'.encode('latin-1')),
        one('bad utf-8 after syntax error', b'{x \xff'), one('utf-16 le bom', '[]'.encode('utf-16')),
        # Nesting past the reference's limit.
        ('arrays past limit', [(b'[', REFERENCE_MAX_NESTING + 1), (b']', REFERENCE_MAX_NESTING + 1)]),
        ('objects past limit', [(b'{"a":', REFERENCE_MAX_NESTING), (b'{}', 1), (b'}', REFERENCE_MAX_NESTING)]),
        ('unclosed arrays far past limit', [(b'[', 2000)]),
        ('mixed past limit', [(b'[{"k":', 1000)]),
        ('deep but unclosed under limit', [(b'[', 500)]),
        ('deep then syntax error', [(b'[', 400), (b'1 2', 1)]),
        ('syntax error before deep', [(b'[x', 1), (b'[', 3000)]),
        # Big bodies.
        ('big unterminated string', [(b'{"description": "', 1), (b'x', 1 << 20)]),
        ('big array missing comma', [(b'[', 1), (b'1,', 50000), (b'1 2]', 1)]),
    ]
    return c


def fuzz_cases(rng):
    """Truncations and one-character edits of valid bodies."""
    seeds = [
        b'{"driver": "fake-hardware", "name": "n\\u00e9", "extra": {"a": [1, 2.5e-3, null]}}',
        '[{"op": "replace", "path": "/name", "value": "żółw"}, {"op": "remove", "path": "/x"}]'.encode(),
        b'{"traits": ["CUSTOM_A", "CUSTOM_B"], "n": -0.5, "t": true, "f": false}',
        b'[NaN, -Infinity, "\\ud83d\\ude00", {"k": {}}]',
    ]
    alphabet = [b'"', b'\\', b'{', b'}', b'[', b']', b',', b':', b' ', b'\n', b'1', b'-',
                b'.', b'e', b'u', b'a', b'\x01', b'\xff', 'é'.encode()]
    out = []
    for i in range(120):
        seed = rng.choice(seeds)
        kind = i % 3
        at = rng.randrange(len(seed) + 1)
        if kind == 0:
            body = seed[:at]
        elif kind == 1:
            body = seed[:at] + rng.choice(alphabet) + seed[at:]
        else:
            body = seed[:at] + seed[at + 1:]
        out.append(one('fuzz %03d' % i, body))
    return out


def encode_pieces(pieces):
    out = []
    for body, n in pieces:
        try:
            p = {'text': body.decode('utf-8')}
        except UnicodeDecodeError:
            p = {'base64': base64.b64encode(body).decode()}
        if n != 1:
            p['repeat'] = n
        out.append(p)
    return out


def check_reference(url, records):
    """POSTs the malformed bodies to the reference and compares its answers."""
    bad = sent = 0
    for r in records:
        exc = r['exception']
        if exc is None or exc == 'RecursionError':
            continue
        body = b''.join(b * n for b, n in r['_pieces'])
        if not body:
            continue  # Ironic does not decode an empty body
        sent += 1
        req = urllib.request.Request(
            url.rstrip('/') + '/v1/chassis', data=body, method='POST',
            headers={'Content-Type': 'application/json',
                     'X-OpenStack-Ironic-API-Version': '1.82'})
        try:
            with urllib.request.urlopen(req, timeout=30) as resp:
                status, text = resp.status, resp.read()
        except urllib.error.HTTPError as e:
            status, text = e.code, e.read()
        if exc == 'UnicodeDecodeError':
            ok = status == 400
            got = status
        else:
            doc = json.loads(text)
            got = json.loads(doc['error_message'])['faultstring']
            ok = got == r['message']
        if not ok:
            bad += 1
            print('reference differs on %r: %r, want %r' % (r['name'], got, r['message']))
    if bad:
        sys.exit('%d cases differ from the reference' % bad)
    print('reference agrees on %d malformed bodies' % sent)


def main():
    corpus, checks = corpus_cases()
    rng = random.Random(20240521)
    cases = corpus + valid_cases() + malformed_cases() + fuzz_cases(rng)
    names = [n for n, _ in cases]
    if len(set(names)) != len(names):
        sys.exit('duplicate case names')
    records = []
    results = outcomes([b''.join(b * n for b, n in pieces) for _, pieces in cases])
    for (name, pieces), res in zip(cases, results):
        rec = {'name': name, 'input': encode_pieces(pieces),
               'exception': res and res[0], 'message': res and res[1]}
        if name in checks:
            want = checks.pop(name)
            if rec['message'] != want:
                sys.exit('%s: Python says %r, deviations.json %r' % (name, rec['message'], want))
            print('%s agrees with deviations.json' % name)
        records.append(dict(rec, _pieces=pieces))
    if checks:
        sys.exit('corpus cases not generated: %s' % sorted(checks))
    if len(sys.argv) == 3 and sys.argv[1] == '--reference':
        check_reference(sys.argv[2], records)
    for r in records:
        del r['_pieces']
    with open(OUT, 'w') as f:
        json.dump(records, f, indent=1, ensure_ascii=True)
        f.write('\n')
    bad = sum(1 for r in records if r['exception'])
    print('wrote %d cases (%d malformed, %d valid) to %s' % (len(records), bad, len(records) - bad, OUT))


if __name__ == '__main__':
    main()
