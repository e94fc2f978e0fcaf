#!/usr/bin/env python3
"""make-hostile.py OUTDIR [--seed N]: the hostile-mail corpus (tests/t/hostile.sh).

Writes about 180 hostile mails and 20 good ones, interleaved, as files
NNN-NAME.eml in OUTDIR (created if missing; nothing else is written there),
and prints one line per file on stdout:

    NAME<TAB>KIND<TAB>MESSAGE-ID

KIND is what `perfbot parse` must make of it:
    good     a real reply-shaped mail: exit 0, not quarantined, its
             Message-ID (third column, without <>) read, and its body holds
             the line "hostile-corpus-marker: MESSAGE-ID"; ingest --all must
             archive it
    mail     a hostile mail (it has a header field): exit 0
    notmail  not a mail at all (no header field before the first empty
             line): exit 65
    any      random bytes, which may or may not look like a header: 0 or 65
MESSAGE-ID is "-" for all but the good ones.

Same seed, same bytes: random data comes from random.Random(seed) and the
gzip member has a fixed mtime.  Python 3 standard library only.  The
biggest inputs are sized so that the whole corpus stays near 40 MiB and
below perfbot's 32 MiB per-message limit (mail.h), except where a case is
about that limit.
"""

import argparse
import base64
import gzip
import os
import random
import sys

MARKER = b'hostile-corpus-marker: '
DATE = b'Date: Fri, 13 Mar 2026 12:00:00 +0000\n'


def head(slug, subject=None, extra=b'', mid=True):
    """A plain header (LF line ends, no empty line after it)."""
    h = b'From: Eve Hostile <eve@corpus.example.org>\n'
    h += b'To: perfbot lab <perfbot@lab.example.org>\n'
    h += b'Subject: ' + (subject if subject is not None else b'hostile ' + slug.encode()) + b'\n'
    h += DATE
    if mid:
        h += b'Message-ID: <hostile-' + slug.encode() + b'@corpus.example.org>\n'
    return h + extra


def multipart(slug, boundary_param, body, subtype=b'mixed', extra=b''):
    return head(slug, extra=extra + b'MIME-Version: 1.0\nContent-Type: multipart/' + subtype
                + b'; boundary=' + boundary_param + b'\n') + b'\n' + body


def text_part(text=b'hello\n', ctype=b'text/plain; charset=utf-8', cte=None):
    p = b'Content-Type: ' + ctype + b'\n'
    if cte:
        p += b'Content-Transfer-Encoding: ' + cte + b'\n'
    return p + b'\n' + text


def parts(boundary, *ps, close=True):
    out = b'preamble\n'
    for p in ps:
        out += b'--' + boundary + b'\n' + p
        if not p.endswith(b'\n'):
            out += b'\n'
    if close:
        out += b'--' + boundary + b'--\n'
    return out


def single(slug, body, ctype=b'text/plain; charset=utf-8', cte=None, extra=b''):
    h = extra + b'MIME-Version: 1.0\nContent-Type: ' + ctype + b'\n'
    if cte:
        h += b'Content-Transfer-Encoding: ' + cte + b'\n'
    return head(slug, extra=h) + b'\n' + body


def nested(slug, depth, same=False, subtype=b'mixed'):
    """depth multiparts, one inside the other, a text part at the bottom."""
    def b(i):
        return b'nest' if same else b'nest%d' % i
    out = b''
    for i in range(depth):
        out += b'--' + b(i) + b'\nContent-Type: multipart/' + subtype + b'; boundary=' + b(i + 1) + b'\n\n'
    out += b'--' + b(depth) + b'\n' + text_part(b'at the bottom\n')
    for i in range(depth, -1, -1):
        out += b'--' + b(i) + b'--\n'
    return multipart(slug, b(0), out, subtype)


def rfc822_nested(slug, depth):
    inner = b'From: a@b.example\nSubject: inner\n\ninnermost\n'
    for _ in range(depth):
        inner = b'From: a@b.example\nSubject: wrap\nContent-Type: message/rfc822\n\n' + inner
    return head(slug, extra=b'MIME-Version: 1.0\nContent-Type: message/rfc822\n') + b'\n' + inner


def many_parts(slug, n, empty=False):
    body = b''
    for i in range(n):
        body += b'--p\n' + (b'\n' if empty else b'Content-Type: text/plain\n\npart %d\n' % i)
    return multipart(slug, b'p', body + b'--p--\n')


def good(i, mid):
    """A reply-shaped mail that must be archived; a few shapes in turn."""
    report = b'202603%02d1342.%08x-lab@lab.example.org' % (10 + i % 18, 0x297fb270 + i)
    marker = MARKER + mid + b'\n'
    h = (b'From: Good Sender %d <good%d@example.org>\n' % (i, i)
         + b'To: perfbot lab <perfbot@lab.example.org>\n'
         + b'Cc: perf-reports@lists.example.org\n'
         + b'Subject: Re: [linus:master] [mm]  9890ecab6a: vm-scalability.throughput %d.%d%% regression\n'
         % (i, i % 10)
         + b'Date: Wed, 11 Mar 2026 %02d:%02d:00 +0100\n' % (i % 24, i % 60)
         + b'Message-ID: <' + mid + b'>\n'
         + b'In-Reply-To: <' + report + b'>\n'
         + b'References: <' + report + b'>\n'
         + b'MIME-Version: 1.0\n')
    text = (b'On Tue, Mar 10, 2026, perfbot lab wrote:\n'
            b'> kernel test robot noticed a regression of vm-scalability.throughput on:\n\n'
            b'Thanks, looking into it (good mail %d).\n\n' % i + marker
            + b'\nReviewed-by: Good Sender %d <good%d@example.org>\n' % (i, i))
    shape = i % 4
    if shape == 0:
        return h + b'Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: 8bit\n\n' + text
    if shape == 1:
        enc = text.replace(b'Thanks', b'Merci, d\xe9j\xe0')
        qp = enc.replace(b'=', b'=3D').replace(b'\xe9', b'=E9').replace(b'\xe0', b'=E0')
        return (h + b'Content-Type: text/plain; charset=iso-8859-1\n'
                b'Content-Transfer-Encoding: quoted-printable\n\n' + qp)
    if shape == 2:
        b64 = base64.encodebytes(text)
        return (h + b'Content-Type: multipart/alternative; boundary="=_alt_%d"\n\n' % i
                + b'--=_alt_%d\nContent-Type: text/plain; charset=utf-8\n' % i
                + b'Content-Transfer-Encoding: base64\n\n' + b64
                + b'--=_alt_%d\nContent-Type: text/html; charset=utf-8\n\n<p>html</p>\n' % i
                + b'--=_alt_%d--\n' % i)
    return (h.replace(b'\n', b'\r\n')
            + b'Content-Type: text/plain; charset=us-ascii; format=flowed\r\n\r\n'
            + text.replace(b'\n', b'\r\n'))


def hostile_cases(rnd):
    """(slug, kind, bytes) for every hostile input, in a fixed order."""
    c = []

    def add(slug, data, kind='mail'):
        c.append((slug, kind, data))

    t = text_part()
    # -- malformed MIME boundaries
    add('boundary-lone-quote', multipart('boundary-lone-quote', b'"\\""', parts(b'"', t)))
    add('boundary-lone-quote-unquoted', multipart('boundary-lone-quote-unquoted', b'\\"', parts(b'"', t)))
    add('boundary-empty-quoted', multipart('boundary-empty-quoted', b'""', parts(b'', t)))
    add('boundary-empty-unquoted', multipart('boundary-empty-unquoted', b'', parts(b'', t)))
    add('boundary-absent', head('boundary-absent', extra=b'Content-Type: multipart/mixed\n') + b'\n'
        + parts(b'x', t))
    add('boundary-71', multipart('boundary-71', b'b' * 71, parts(b'b' * 71, t)))
    add('boundary-200', multipart('boundary-200', b'"' + b'c' * 200 + b'"', parts(b'c' * 200, t)))
    add('boundary-4000', multipart('boundary-4000', b'd' * 4000, parts(b'd' * 4000, t)))
    add('boundary-escaped-quote', multipart('boundary-escaped-quote', b'"a\\"b"', parts(b'a"b', t)))
    add('boundary-backslashes', multipart('boundary-backslashes', b'"a\\\\b\\\\"', parts(b'a\\b\\', t)))
    add('boundary-only-backslash', multipart('boundary-only-backslash', b'"\\\\"', parts(b'\\', t)))
    add('boundary-three-quotes', multipart('boundary-three-quotes', b'"""', parts(b'"', t)))
    add('boundary-unterminated-quote', multipart('boundary-unterminated-quote', b'"abc', parts(b'abc', t)))
    add('boundary-trailing-backslash', multipart('boundary-trailing-backslash', b'"abc\\', parts(b'abc', t)))
    add('boundary-never-closed', multipart('boundary-never-closed', b'open',
                                           parts(b'open', t, text_part(b'second\n'), close=False)))
    add('boundary-close-only', multipart('boundary-close-only', b'z', b'--z--\n'))
    add('boundary-no-delimiter', multipart('boundary-no-delimiter', b'never', b'no delimiter here\n' * 50))
    inner = (b'Content-Type: multipart/alternative; boundary=same\n\n'
             + parts(b'same', t, text_part(b'<p>x</p>\n', b'text/html')))
    add('boundary-nested-same', multipart('boundary-nested-same', b'same', parts(b'same', inner, t)))
    inner = b'Content-Type: multipart/mixed; boundary=ab\n\n' + parts(b'ab', t)
    add('boundary-prefix-of-inner', multipart('boundary-prefix-of-inner', b'a', parts(b'a', inner)))
    add('boundary-with-dashes', multipart('boundary-with-dashes', b'"--"', parts(b'--', t)))
    add('boundary-space-at-end', multipart('boundary-space-at-end', b'"sp "', parts(b'sp ', t)))
    add('boundary-nul', multipart('boundary-nul', b'"n\0l"', parts(b'n\0l', t)))
    add('boundary-8bit', multipart('boundary-8bit', b'"\xff\xfe\xc3"', parts(b'\xff\xfe\xc3', t)))
    add('boundary-twice', multipart('boundary-twice', b'one; boundary=two', parts(b'two', t)))
    add('boundary-rfc2231', multipart('boundary-rfc2231', b'x; boundary*0="ab"; boundary*1="cd"',
                                      parts(b'abcd', t)))
    add('boundary-delimiter-garbage', multipart('boundary-delimiter-garbage', b'g',
                                                b'--gXYZ\n' + t + b'--g  trailing\n' + t + b'--g--junk\n'))
    add('boundary-part-without-header', multipart('boundary-part-without-header', b'q',
                                                  b'--q\nno header here at all\n--q--\n'))
    add('boundary-multipart-base64', multipart('boundary-multipart-base64', b'm', parts(b'm', t),
                                               extra=b'Content-Transfer-Encoding: base64\n'))
    # -- deep nesting
    add('nesting-30', nested('nesting-30', 30))
    add('nesting-100', nested('nesting-100', 100))
    add('nesting-1000', nested('nesting-1000', 1000))
    add('nesting-1000-same-boundary', nested('nesting-1000-same-boundary', 1000, same=True))
    add('nesting-30-alternative', nested('nesting-30-alternative', 30, subtype=b'alternative'))
    add('nesting-rfc822-100', rfc822_nested('nesting-rfc822-100', 100))
    add('nesting-unclosed-1000', multipart('nesting-unclosed-1000', b'u0', b''.join(
        b'--u%d\nContent-Type: multipart/mixed; boundary=u%d\n\n' % (i, i + 1) for i in range(1000))))
    # -- thousands of parts
    add('parts-501', many_parts('parts-501', 501))
    add('parts-3000', many_parts('parts-3000', 3000))
    add('parts-20000-empty', many_parts('parts-20000-empty', 20000, empty=True))
    add('parts-alternative-2000', multipart('parts-alternative-2000', b'p', b''.join(
        b'--p\nContent-Type: text/html\n\n<p>%d</p>\n' % i for i in range(2000)) + b'--p--\n', b'alternative'))
    # -- NUL bytes
    add('nul-in-field-name', head('nul-in-field-name', extra=b'X-N\0l: v\n') + b'\nbody\n')
    add('nul-in-subject', head('nul-in-subject', subject=b'sub\0ject') + b'\nbody\n')
    add('nul-in-from', head('nul-in-from').replace(b'eve@', b'e\0ve@') + b'\nbody\n')
    add('nul-in-body', single('nul-in-body', b'a\0b\n> q\0\n\0#perfbot invalid\n'))
    add('nul-body-64k', single('nul-body-64k', b'\0' * 65536))
    add('nul-after-separator', head('nul-after-separator') + b'\n\0\0\0text\n')
    add('nul-in-content-type', single('nul-in-content-type', b'x\n', ctype=b'text/pl\0ain; charset=u\0tf-8'))
    add('nul-in-part-header', multipart('nul-in-part-header', b'n', parts(
        b'n', b'Content-Type: text/plain;\0 charset=utf-8\nContent-Transfer-\0Encoding: base64\n\naGVsbG8=\n')))
    add('nul-first-byte', b'\0' + head('nul-first-byte') + b'\nbody\n', 'any')
    # -- huge lines and bodies
    add('line-1mib-no-newline', head('line-1mib-no-newline') + b'\n' + b'L' * (1 << 20))
    add('line-1mib-quoted', head('line-1mib-quoted') + b'\n> ' + b'Q' * (1 << 20) + b'\n')
    add('body-10mib', head('body-10mib') + b'\n' + (b'0123456789abcdef' * 4 + b'\n') * (10 * (1 << 20) // 65))
    add('header-line-100kib', head('header-line-100kib', subject=b's' * (100 << 10)) + b'\nbody\n')
    add('header-line-60kib', head('header-line-60kib', subject=b't' * (60 << 10)) + b'\nbody\n')
    add('header-line-1mib-no-body', head('header-line-1mib-no-body') + b'X-Big: ' + b'h' * (1 << 20))
    add('header-folded-300kib', head('header-folded-300kib', subject=b'\n '.join([b'w' * 70] * 4400))
        + b'\nbody\n')
    add('base64-line-1mib', single('base64-line-1mib', base64.b64encode(b'text ' * 200000) + b'\n',
                                   cte=b'base64'))
    add('qp-soft-breaks-1m', single('qp-soft-breaks-1m', b'=\n' * 1000000 + b'end\n', cte=b'quoted-printable'))
    add('over-32mib', head('over-32mib') + b'\n' + (b'z' * 1023 + b'\n') * (33 << 10))
    # -- header counts
    add('fields-10000', head('fields-10000') + b''.join(b'X-H%d: v\n' % i for i in range(10000)) + b'\nbody\n')
    add('fields-10000-received', b''.join(b'Received: from h%d by h%d; %s' % (i, i + 1, DATE[6:])
                                          for i in range(10000)) + head('fields-10000-received') + b'\nbody\n')
    add('fields-1000-subjects', head('fields-1000-subjects') + b''.join(b'Subject: s%d\n' % i for i in range(1000))
        + b'\nbody\n')
    add('fields-continuation-10000', head('fields-continuation-10000') + b'X-Long: a\n' + b' b\n' * 10000
        + b'\nbody\n')
    add('fields-1000-message-ids', head('fields-1000-message-ids', mid=False) + b''.join(
        b'Message-ID: <dup-%d@corpus.example.org>\n' % i for i in range(1000)) + b'\nbody\n')
    # -- bad transfer encodings and charsets
    add('base64-invalid', single('base64-invalid', b'!!!!====@@@@\n%%%%\n', cte=b'base64'))
    add('base64-only-padding', single('base64-only-padding', b'====\n' * 100, cte=b'base64'))
    add('base64-truncated', single('base64-truncated', b'aGVsbG8gd29yb', cte=b'base64'))
    add('base64-mid-padding', single('base64-mid-padding', b'aGVs=bG8=gd29y=bGQ=\n', cte=b'base64'))
    add('base64-binary-garbage', single('base64-binary-garbage', rnd.randbytes(4096), cte=b'base64'))
    add('qp-truncated-equals', single('qp-truncated-equals', b'abc=', cte=b'quoted-printable'))
    add('qp-truncated-hex', single('qp-truncated-hex', b'abc=4', cte=b'quoted-printable'))
    add('qp-bad-hex', single('qp-bad-hex', b'=ZZ=G0=\xff\xfe=0\n=\r\n=  \n', cte=b'quoted-printable'))
    add('qp-all-nul', single('qp-all-nul', b'=00' * 100000 + b'\n', cte=b'quoted-printable'))
    add('cte-unknown', single('cte-unknown', b'begin 644 x\n`\nend\n', cte=b'x-uuencode'))
    add('cte-garbage', single('cte-garbage', b'body\n', cte=b'\xff\0"(('))
    add('cte-twice', single('cte-twice', b'aGVsbG8=\n', cte=b'base64\nContent-Transfer-Encoding: quoted-printable'))
    add('charset-unknown', single('charset-unknown', b'caf\xe9\n', ctype=b'text/plain; charset=x-no-such-charset'))
    add('charset-empty', single('charset-empty', b'caf\xe9\n', ctype=b'text/plain; charset=""'))
    add('charset-2000', single('charset-2000', b'body\n', ctype=b'text/plain; charset=' + b'k' * 2000))
    add('charset-8bit-name', single('charset-8bit-name', b'body\n', ctype=b'text/plain; charset="\xff\xfe"'))
    add('charset-utf7', single('charset-utf7', b'Hi Mom -+Jjo--!\n+2D3cAA- +AAA-\n', ctype=b'text/plain; charset=utf-7'))
    add('charset-utf7-broken', single('charset-utf7-broken', b'+!!!!\n+AAAAAAAAA\n+2D0-\n+', ctype=b'text/plain; charset=UTF-7'))
    add('charset-utf16-odd', single('charset-utf16-odd', b'\xff\xfeh\0i\0\n', ctype=b'text/plain; charset=utf-16'))
    add('charset-utf16-lone-surrogate', single('charset-utf16-lone-surrogate', b'\x00\xd8a\x00\x00\xdc\n\x00',
                                               ctype=b'text/plain; charset=utf-16le'))
    add('charset-utf32-out-of-range', single('charset-utf32-out-of-range', b'\x00\x00\x11\x00\xff\xff\xff\xff',
                                             ctype=b'text/plain; charset=utf-32le'))
    add('charset-iso2022jp-broken', single('charset-iso2022jp-broken', b'\x1b$B\x30\x21\x1b(\x1b$\n\x1b',
                                           ctype=b'text/plain; charset=iso-2022-jp'))
    add('charset-gb18030-truncated', single('charset-gb18030-truncated', b'\x81\x30\x81\n\x81',
                                            ctype=b'text/plain; charset=gb18030'))
    add('charset-ebcdic', single('charset-ebcdic', b'\xc8\x85\x93\x93\x96\x25', ctype=b'text/plain; charset=cp037'))
    add('mixed-encodings', multipart('mixed-encodings', b'mx', parts(
        b'mx',
        text_part(b'caf=E9 =\n', b'text/plain; charset=iso-8859-1', b'quoted-printable'),
        text_part(b'!!!bad base64', b'text/plain; charset=utf-8', b'base64'),
        text_part(b'\xff\xfe raw\n', b'text/plain; charset=koi8-r', b'8bit'),
        text_part(b'+ZeVnLIqe-\n', b'text/plain; charset=utf-7', b'7bit'),
        text_part(rnd.randbytes(300), b'application/octet-stream', b'binary'))))
    # -- RFC 2047 encoded words
    add('ew-bad-base64', head('ew-bad-base64', subject=b'=?utf-8?B?!!!!?= =?utf-8?B?a?= =?utf-8?B?====?=')
        + b'\nbody\n')
    add('ew-unknown-charset', head('ew-unknown-charset', subject=b'=?x-unknown?Q?abc?= =?\xff?B?YWJj?=')
        + b'\nbody\n')
    add('ew-utf7', head('ew-utf7', subject=b'=?utf-7?Q?+2D3cAA-?= =?UTF-7?B?KzJEMC0=?=') + b'\nbody\n')
    add('ew-empty-and-truncated', head('ew-empty-and-truncated', subject=b'=?utf-8?B??= =?utf-8?Q?abc =?=?=?')
        + b'\nbody\n')
    add('ew-decodes-to-controls', head('ew-decodes-to-controls', subject=b'=?utf-8?Q?a=00b=0D=0Ac?=')
        .replace(b'From: Eve Hostile', b'From: =?utf-8?Q?Eve=0D=0ABcc=3A_x=40y?=') + b'\nbody\n')
    add('ew-invalid-utf8', head('ew-invalid-utf8', subject=b'=?utf-8?Q?=FF=FE=C3=28?=') + b'\nbody\n')
    add('ew-lone-surrogate', head('ew-lone-surrogate', subject=b'=?utf-8?B?7aCA?= =?utf-8?Q?=ED=BF=BF?=')
        + b'\nbody\n')
    add('ew-language', head('ew-language', subject=b'=?utf-8*en-US?Q?hello?= =?*?Q?x?=') + b'\nbody\n')
    add('ew-nested-markers', head('ew-nested-markers', subject=b'=?' * 5000 + b'?=' * 5000) + b'\nbody\n')
    words = [b'=?utf-8?Q?w%d?=' % i for i in range(100000)]
    add('ew-subject-100000-words', head('ew-subject-100000-words', subject=b'\n '.join(words)) + b'\nbody\n')
    add('ew-subject-100000-one-line', head('ew-subject-100000-one-line', subject=b' '.join(words))
        + b'\nbody\n')
    add('ew-subject-10000-words', head('ew-subject-10000-words', subject=b'\n '.join(
        [b'=?utf-8?B?w6k=?='] * 10000)) + b'\nbody\n')
    # -- invalid UTF-8, overlong forms, surrogates
    add('utf8-invalid-subject', head('utf8-invalid-subject', subject=b'\xff\xfe\xc3\x28 \xe2\x82') + b'\nbody\n')
    add('utf8-invalid-from-name', head('utf8-invalid-from-name').replace(b'Eve Hostile', b'\xc0\xaf\xe0\x80') + b'\nb\n')
    add('utf8-invalid-body', single('utf8-invalid-body', b'\xff\xfe\xc3\x28\xe2\x82\n\xf0\x9f\x98'))
    add('utf8-overlong', single('utf8-overlong', b'\xc0\xaf \xe0\x80\xaf \xf0\x80\x80\xaf \xc0\x80 \xc1\xbf\n'))
    add('utf8-overlong-nul-header', head('utf8-overlong-nul-header', subject=b'a\xc0\x80b') + b'\nbody\n')
    add('utf8-surrogates', single('utf8-surrogates', b'\xed\xa0\x80 \xed\xbf\xbf \xed\xa0\xbd\xed\xb8\x80\n'))
    add('utf8-surrogate-in-header', head('utf8-surrogate-in-header', subject=b'\xed\xa0\x80')
        + b'X-Ed: \xed\xbf\xbf\n\nbody\n')
    add('utf8-above-10ffff', single('utf8-above-10ffff', b'\xf4\x90\x80\x80 \xf8\x88\x80\x80\x80 \xfc\x84\x80\x80\x80\x80\n'))
    add('utf8-truncated-at-eof', single('utf8-truncated-at-eof', b'ok \xe2\x82'))
    add('utf8-bom-first', b'\xef\xbb\xbf' + head('utf8-bom-first') + b'\nbody\n', 'any')
    add('utf16-whole-mail', (head('utf16-whole-mail') + b'\nbody\n').decode().encode('utf-16'), 'any')
    add('utf8-random-continuations', single('utf8-random-continuations',
                                            bytes(0x80 + rnd.randrange(64) for _ in range(20000))))
    # -- line ends
    add('line-ends-cr-only', (head('line-ends-cr-only') + b'\nbody\n> q\n#perfbot invalid\n').replace(b'\n', b'\r'))
    add('line-ends-mixed', head('line-ends-mixed').replace(b'\n', b'\r\n', 2) + b'\r\n' + b'a\r\nb\nc\rd\n\r\n')
    add('line-ends-lfcr', (head('line-ends-lfcr') + b'\nbody\n').replace(b'\n', b'\n\r'))
    add('line-ends-crcrlf', (head('line-ends-crcrlf') + b'\nbody\n').replace(b'\n', b'\r\r\n'))
    add('line-ends-cr-in-field', head('line-ends-cr-in-field', subject=b'a\rBcc: x@y.example\rb') + b'\nbody\n')
    add('line-ends-formfeed', head('line-ends-formfeed', subject=b'\f\v\x1b[31m\x7f') + b'\n\f\v\x08\n')
    # -- structure
    add('no-separator', head('no-separator') + b'this body has no empty line before it\n> q\n')
    add('only-headers', head('only-headers'))
    add('only-headers-no-newline', head('only-headers-no-newline') + b'X-Last: no newline')
    add('only-one-field', b'Subject: x')
    add('leading-empty-line', b'\n' + head('leading-empty-line') + b'\nbody\n', 'any')
    add('leading-continuation', b' folded: first\n' + head('leading-continuation') + b'\nbody\n', 'any')
    add('field-name-8bit', b'Subj\xe9ct: x\n' + head('field-name-8bit') + b'\nbody\n', 'any')
    add('field-name-1000', b'X' * 1000 + b': v\n' + head('field-name-1000') + b'\nbody\n', 'any')
    add('field-no-colon-first', b'garbage line\n' + head('field-no-colon-first') + b'\nbody\n', 'any')
    add('mbox-from-only', b'From eve@corpus.example.org Fri Mar 13 12:00:00 2026\n', 'notmail')
    add('empty-file', b'', 'notmail')
    add('single-byte-x', b'x', 'notmail')
    add('single-byte-newline', b'\n', 'notmail')
    add('single-byte-nul', b'\0', 'notmail')
    add('single-byte-ff', b'\xff', 'notmail')
    add('single-colon', b':', 'any')
    add('plain-text', b'Dear list,\n\nthis is just text.\n', 'notmail')
    for n in (2, 100, 4096, 65536, 1 << 20):
        add('random-%d' % n, rnd.randbytes(n), 'any')
    add('random-printable', bytes(rnd.randrange(32, 127) for _ in range(10000)), 'any')
    add('random-lines', b''.join(bytes(rnd.randrange(32, 127) for _ in range(rnd.randrange(80))) + b'\n'
                                 for _ in range(2000)), 'any')
    add('random-after-header', head('random-after-header') + b'\n' + rnd.randbytes(100000))
    add('random-mime-body', multipart('random-mime-body', b'r', b'--r\n' + rnd.randbytes(50000)))
    # -- Content-Type parameters
    add('ctype-params-10000', single('ctype-params-10000', b'body\n', ctype=b'text/plain' + b''.join(
        b';\n p%d=v%d' % (i, i) for i in range(10000))))
    add('ctype-charset-10000-times', single('ctype-charset-10000-times', b'caf\xe9\n', ctype=b'text/plain' + b''.join(
        b';\n charset=x-%d' % i for i in range(10000))))
    add('ctype-rfc2231-10000-pieces', single('ctype-rfc2231-10000-pieces', b'body\n', ctype=b'text/plain' + b''.join(
        b";\n charset*%d*=utf-8''%%%02X" % (i, i % 256) for i in range(10000))))
    add('ctype-value-200kib', single('ctype-value-200kib', b'body\n', ctype=b'text/plain; name="' + b'n' * (200 << 10)
                                     + b'"'))
    add('ctype-garbage', single('ctype-garbage', b'body\n', ctype=b';;;==/"((\\'))
    add('ctype-no-subtype', single('ctype-no-subtype', b'body\n', ctype=b'text'))
    add('ctype-comment-nesting', single('ctype-comment-nesting', b'body\n', ctype=b'text/plain' + b'(' * 10000))
    # -- References, In-Reply-To, Message-ID
    add('references-10000', head('references-10000', extra=b'References:' + b''.join(
        b'\n <r%d@corpus.example.org>' % i for i in range(10000)) + b'\n') + b'\nbody\n')
    add('in-reply-to-10000', head('in-reply-to-10000', extra=b'In-Reply-To:' + b''.join(
        b' <i%d@x>' % i for i in range(10000)) + b'\n') + b'\nbody\n')
    add('references-garbage', head('references-garbage', extra=b'References: <<<a>>> <b <c@d> > <> <@> <x\0y@z>'
                                   b' <\xff@\xfe> (((<e@f>))) <' + b'g' * 5000 + b'@h>\n') + b'\nbody\n')
    add('references-unterminated', head('references-unterminated', extra=b'References: <a@b' + b' x' * 20000
                                        + b'\nIn-Reply-To: <\n') + b'\nbody\n')
    add('message-id-nul', head('message-id-nul', mid=False) + b'Message-ID: <hostile-nul\0@corpus.example.org>\n'
        + b'\nbody\n')
    add('message-id-cr', head('message-id-cr', mid=False) + b'Message-ID: <hostile-cr\r@corpus.example.org>\n'
        + b'\nbody\n')
    add('message-id-crlf-injection', head('message-id-crlf-injection', mid=False)
        + b'Message-ID: <hostile-crlf\r\nBcc: x@y.example>\n\nbody\n')
    add('message-id-2000', head('message-id-2000', mid=False) + b'Message-ID: <' + b'm' * 2000
        + b'@corpus.example.org>\n\nbody\n')
    add('message-id-empty', head('message-id-empty', mid=False) + b'Message-ID: <>\n\nbody\n')
    add('message-id-bare', head('message-id-bare', mid=False) + b'Message-ID: no brackets at all\n\nbody\n')
    add('message-id-8bit', head('message-id-8bit', mid=False) + b'Message-ID: <\xff\xfe\xed\xa0\x80@x>\n\nbody\n')
    # -- addresses
    add('from-1000-addresses', head('from-1000-addresses').replace(b'From: Eve Hostile <eve@corpus.example.org>',
        b'From: ' + b',\n '.join(b'"Sender %d" <s%d@corpus.example.org>' % (i, i) for i in range(1000)))
        + b'\nbody\n')
    add('to-10000-addresses', head('to-10000-addresses', extra=b'Cc: ' + b', '.join(
        b'c%d@x.example' % i for i in range(10000)) + b'\n') + b'\nbody\n')
    add('from-groups-nested', head('from-groups-nested').replace(b'From: Eve Hostile <eve@corpus.example.org>',
        b'From: g1: g2: g3: <a@b>;;; "unterminated <x@y>') + b'\nbody\n')
    add('from-comment-10000', head('from-comment-10000').replace(b'From: Eve Hostile',
        b'From: ' + b'(' * 10000 + b'Eve' + b')' * 9999) + b'\nbody\n')
    add('from-local-part-60kib', head('from-local-part-60kib').replace(b'eve@', b'e' * (60 << 10) + b'@')
        + b'\nbody\n')
    add('from-crlf-in-name', head('from-crlf-in-name').replace(b'Eve Hostile', b'"Eve\r\nBcc: x@y.example"')
        + b'\nbody\n')
    add('date-absurd', head('date-absurd').replace(DATE, b'Date: Fri, 31 Feb 99999999999 99:99:99 -9999\n')
        + b'\nbody\n')
    add('date-10000', head('date-10000').replace(DATE, b'Date: ' + b'1' * 10000 + b'\n') + b'\nbody\n')
    # -- large decoded sizes
    add('base64-bomb-text', single('base64-bomb-text', base64.encodebytes(b'\0' * (6 << 20)), cte=b'base64'))
    bomb = gzip.compress(b'\0' * (100 << 20), compresslevel=9, mtime=0)
    add('base64-gzip-bomb', multipart('base64-gzip-bomb', b'gz', parts(
        b'gz', t,
        b'Content-Type: application/gzip; name="bomb.gz"\nContent-Disposition: attachment; filename="bomb.gz"\n'
        b'Content-Transfer-Encoding: base64\n\n' + base64.encodebytes(bomb),
        b'Content-Type: text/plain\nContent-Encoding: gzip\nContent-Transfer-Encoding: base64\n\n'
        + base64.encodebytes(bomb))))
    # -- format=flowed and the reply analysis
    flowed = b'text/plain; charset=utf-8; format=flowed; delsp=yes'
    add('flowed-quote-depth-100000', single('flowed-quote-depth-100000', b'>' * 100000 + b' deep\nreply\n',
                                            ctype=flowed))
    add('flowed-quote-staircase', single('flowed-quote-staircase', b''.join(
        b'>' * i + b' line %d \n' % i for i in range(1000)) + b'end\n', ctype=flowed))
    add('flowed-one-paragraph', single('flowed-one-paragraph', b'word \n' * 200000 + b'end\n', ctype=flowed))
    add('flowed-only-spaces', single('flowed-only-spaces', b' \n' * 100000, ctype=flowed))
    add('reply-100000-commands', single('reply-100000-commands', b'#perfbot invalid\n' * 100000))
    add('reply-100000-trailers', single('reply-100000-trailers',
                                        b'Tested-by: Eve Hostile <eve@corpus.example.org>\n' * 100000))
    add('reply-alternating-quotes', single('reply-alternating-quotes', b'> quoted\nnew\n' * 100000))
    add('reply-signature-lines', single('reply-signature-lines', b'-- \n' * 100000 + b'x\n'))
    return c


def main():
    ap = argparse.ArgumentParser(description='writes the hostile-mail corpus')
    ap.add_argument('outdir')
    ap.add_argument('--seed', type=int, default=5)
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    os.makedirs(a.outdir, exist_ok=True)
    cases = hostile_cases(rnd)
    goods = 20
    every = max(1, len(cases) // goods)
    n = 0
    out = []
    for k, (slug, kind, data) in enumerate(cases):
        if k % every == every // 2 and n < goods:
            mid = b'good-%02d.%d@corpus.example.org' % (n, a.seed)
            out.append(('good-%02d' % n, 'good', mid.decode(), good(n, mid)))
            n += 1
        out.append((slug, kind, '-', data))
    while n < goods:
        mid = b'good-%02d.%d@corpus.example.org' % (n, a.seed)
        out.append(('good-%02d' % n, 'good', mid.decode(), good(n, mid)))
        n += 1
    for i, (slug, kind, mid, data) in enumerate(out):
        name = '%03d-%s.eml' % (i, slug)
        with open(os.path.join(a.outdir, name), 'wb') as f:
            f.write(data)
        sys.stdout.write('%s\t%s\t%s\n' % (name, kind, mid))


if __name__ == '__main__':
    main()
