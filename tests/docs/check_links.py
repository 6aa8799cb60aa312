#!/usr/bin/env python3
"""check_links — every relative link of the manual points at something.

Usage: check_links.py [ROOT]   (ROOT: the repository, default ../.. of this file)

Reads ROOT/README.md and every ROOT/docs/*.md and checks each relative
markdown link, inline `[text](path)`, `[text](path#anchor)`, `[text](#anchor)`
(images too) and reference definitions `[name]: path`:

  * the file or directory exists, relative to the linking file (a path
    starting with / is relative to ROOT);
  * when the link has an anchor and the target is a markdown file (or the
    linking file itself), a heading of the target makes that anchor by
    GitHub's rule: the heading's text (links reduced to their text, HTML
    tags dropped), lower-cased, every character dropped that is not a
    letter, a digit, a space, '-' or '_' (so backticks and other
    punctuation go), spaces turned into '-'; the second heading with the
    same anchor gets '-1', the third '-2', ... Explicit <a name="x"> or
    id="x" anchors count too.

Links with a scheme (https:, mailto:, ...) are not checked. Text inside
fenced code blocks and inline code spans is not read for links. Each broken
link is printed as `file:line: link: why`; the exit status is 1 when any
is broken, 0 otherwise. Python 3 standard library only.
"""

import glob
import os
import re
import sys
import urllib.parse

FENCE = re.compile(r'^\s{0,3}(`{3,}|~{3,})')
ATX = re.compile(r'^\s{0,3}(#{1,6})(?:\s+(.*?))?\s*$')
SETEXT = re.compile(r'^\s{0,3}(=+|-+)\s*$')
CODE_SPAN = re.compile(r'(`+)(.+?)\1')
INLINE_LINK = re.compile(r'!?\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\(\s*<?([^)\s>]*)>?(?:\s+(?:"[^"]*"|\'[^\']*\'|\([^)]*\)))?\s*\)')
REF_DEF = re.compile(r'^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$')
HTML_ANCHOR = re.compile(r'<a\s[^>]*\b(?:name|id)\s*=\s*["\']([^"\']+)["\']|\bid\s*=\s*["\']([^"\']+)["\']', re.I)
SCHEME = re.compile(r'^[A-Za-z][A-Za-z0-9+.-]*:')


def text_lines (path):
    """(line number, text) of each line outside fenced code blocks."""
    with open (path, encoding='utf-8') as f:
        lines = f.read ().split ('\n')
    fence = None
    for number, line in enumerate (lines, 1):
        m = FENCE.match (line)
        if fence is None:
            if m:
                fence = m.group (1)
                continue
            yield number, line
        elif m and m.group (1) [0] == fence [0] and len (m.group (1)) >= len (fence) \
                and line.strip () == m.group (1) [0] * len (line.strip ()):
            fence = None


def slug (heading):
    """GitHub's anchor for a heading's text."""
    text = re.sub (r'!?\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\([^)]*\)', r'\1', heading)   # links: their text
    text = re.sub (r'<[^>]+>', '', text)                                              # HTML tags
    text = text.strip ().lower ()
    text = ''.join (c for c in text if c.isalnum () or c in ' -_')
    return text.replace (' ', '-')


_anchor_cache = {}


def anchors (path):
    """Every anchor a markdown file defines."""
    path = os.path.realpath (path)
    if path in _anchor_cache:
        return _anchor_cache [path]
    found = set ()
    counts = {}

    def add (heading):
        base = slug (heading)
        n = counts.get (base, 0)
        counts [base] = n + 1
        found.add (base if n == 0 else '%s-%d' % (base, n))

    previous = None
    for _, line in text_lines (path):
        m = ATX.match (line)
        if m:
            add (re.sub (r'\s+#+\s*$', '', m.group (2) or ''))
            previous = None
            continue
        if previous is not None and previous.strip () and SETEXT.match (line) \
                and not previous.lstrip ().startswith (('*', '-', '+', '>', '|')):
            add (previous.strip ())
            previous = None
            continue
        for m in HTML_ANCHOR.finditer (line):
            found.add (m.group (1) or m.group (2))
        previous = line
    _anchor_cache [path] = found
    return found


def links (path):
    """(line number, link target) of each link in a markdown file."""
    for number, line in text_lines (path):
        m = REF_DEF.match (line)
        if m:
            yield number, m.group (1)
            continue
        line = CODE_SPAN.sub (lambda s: 'code', line)
        for m in INLINE_LINK.finditer (line):
            yield number, m.group (2)


def check (root, path):
    """The broken links of one file, as (line, link, why)."""
    broken = []
    for number, link in links (path):
        if not link or SCHEME.match (link) or link.startswith ('//'):
            continue
        target, _, anchor = link.partition ('#')
        target = urllib.parse.unquote (target)
        anchor = urllib.parse.unquote (anchor)
        if target == '':
            where = path
        elif target.startswith ('/'):
            where = os.path.join (root, target.lstrip ('/'))
        else:
            where = os.path.join (os.path.dirname (path), target)
        if target and not os.path.exists (where):
            broken.append ((number, link, 'no such file: %s' % os.path.relpath (where, root)))
            continue
        if '#' in link:
            if not anchor:
                broken.append ((number, link, 'empty anchor'))
            elif os.path.isfile (where) and where.endswith (('.md', '.markdown')):
                if anchor not in anchors (where):
                    broken.append ((number, link, 'no heading makes anchor "%s" in %s'
                                    % (anchor, os.path.relpath (where, root))))
            elif os.path.isdir (where):
                broken.append ((number, link, 'an anchor on a directory'))
    return broken


def main (argv):
    here = os.path.dirname (os.path.abspath (__file__))
    root = os.path.abspath (argv [1] if len (argv) > 1 else os.path.join (here, '..', '..'))
    files = [os.path.join (root, 'README.md')] + sorted (glob.glob (os.path.join (root, 'docs', '*.md')))
    total = 0
    checked = 0
    for path in files:
        if not os.path.isfile (path):
            print ('%s: missing' % os.path.relpath (path, root))
            total += 1
            continue
        checked += 1
        for number, link, why in check (root, path):
            print ('%s:%d: %s: %s' % (os.path.relpath (path, root), number, link, why))
            total += 1
    if total:
        print ('%d broken link(s)' % total)
        return 1
    print ('%d files, every relative link and anchor resolves' % checked)
    return 0


if __name__ == '__main__':
    sys.exit (main (sys.argv))
