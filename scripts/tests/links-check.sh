#!/usr/bin/env bash
# Every relative link in README.md, CHANGELOG.md and docs/**/*.md leads somewhere: the target of
# [text](path), ![alt](path) and [label]: path is a file or folder of this tree (not one git
# ignores), and a #anchor, in the same document or another, is a heading there by GitHub's rule
# (lowercase, spaces to '-', punctuation dropped but '-' and '_', a repeated heading's slug taking
# -1, -2...) or an explicit id. Code (fenced blocks and `spans`) holds no links; http(s):, mailto:
# and other schemes are not checked. Needs no PostgreSQL: scripts/test.sh runs it first.
# Usage: scripts/tests/links-check.sh [FILE.md...]   (default: README.md, CHANGELOG.md, docs/**/*.md;
#        prints "ok - links: ..." / "not ok - links: ..." lines; exit 1 on failure)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
files=("$@")
[ ${#files[@]} -gt 0 ] || mapfile -t files < <(printf '%s\n' README.md CHANGELOG.md; find docs -name '*.md' | sort)
python3 - "${files[@]}" <<'PY'
import os, re, subprocess, sys
from urllib.parse import unquote

FENCE = re.compile(r'^ {0,3}(`{3,}|~{3,})')

def blank_fences(text):
    """The text with its fenced code blocks blanked (line breaks kept)."""
    out, fence = [], None
    for line in text.split('\n'):
        m = FENCE.match(line)
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and not line.strip(fence[0]).strip():
                fence = None
            out.append('')
        elif m:
            fence = m.group(1)
            out.append('')
        else:
            out.append(line)
    return '\n'.join(out)

def blank_code(text):
    """The text with fenced code blocks and inline code spans blanked (line breaks kept)."""
    return re.sub(r'(`+)(?:(?!\1).)+?\1', lambda m: ' ' * len(m.group(0)), blank_fences(text), flags=re.S)

def slug(heading):
    """GitHub's anchor for a heading's text."""
    t = re.sub(r'!?\[([^\]]*)\]\([^)]*\)', r'\1', heading)  # links and images: their text
    t = re.sub(r'<[^>]+>', '', t)                           # HTML tags
    t = t.replace('`', '').strip().lower()
    t = ''.join(c for c in t if c.isalnum() or c in '-_ ')
    return t.replace(' ', '-')

anchor_cache = {}
def anchors(path):
    if path not in anchor_cache:
        text = blank_fences(open(path, encoding='utf-8').read())
        seen, found = {}, set()
        lines = text.split('\n')
        for i, line in enumerate(lines):
            m = re.match(r'^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$', line)
            if not m and i > 0 and re.match(r'^ {0,3}(=+|-+)\s*$', line) and lines[i - 1].strip() \
                    and not re.match(r'^\s*([-*+|>]|\d+\.)', lines[i - 1]):
                m = re.match(r'^\s*(.*?)\s*$', lines[i - 1])  # a setext heading
            if m:
                s = slug(m.group(1))
                n = seen.get(s, 0)
                seen[s] = n + 1
                found.add(s if n == 0 else f'{s}-{n}')
        found.update(re.findall(r'<a\s+(?:name|id)="([^"]+)"', text))
        found.update(re.findall(r'\sid="([^"]+)"', text))
        anchor_cache[path] = found
    return anchor_cache[path]

def ignored(path):
    return subprocess.run(['git', 'check-ignore', '-q', path]).returncode == 0

INLINE = re.compile(r'!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*(<[^>\n]*>|[^\s)]+)(?:\s+("[^"\n]*"|\'[^\'\n]*\'))?\s*\)')
REFDEF = re.compile(r'^ {0,3}\[[^\]\n]+\]:\s*(<[^>\n]*>|\S+)', re.M)
root = os.path.realpath('.')
failed = 0
for f in sys.argv[1:]:
    text = blank_code(open(f, encoding='utf-8').read())
    links = [(m.start(), m.group(1)) for m in INLINE.finditer(text)] + \
            [(m.start(), m.group(1)) for m in REFDEF.finditer(text)]
    problems, checked, with_anchor = [], 0, 0
    for pos, dest in sorted(links):
        dest = dest.strip('<>')
        if re.match(r'^[a-zA-Z][a-zA-Z0-9+.-]*:', dest) or dest.startswith('//'):
            continue  # a URL
        checked += 1
        line = text.count('\n', 0, pos) + 1
        path, _, anchor = dest.partition('#')
        target = os.path.normpath(os.path.join(os.path.dirname(f), unquote(path))) if path else f
        if not os.path.realpath(target).startswith(root + os.sep):
            problems.append(f'{f}:{line}: {dest} (outside the tree)')
        elif not os.path.exists(target):
            problems.append(f'{f}:{line}: {dest} (no such file)')
        elif path and ignored(target):
            problems.append(f'{f}:{line}: {dest} (a path git ignores)')
        elif anchor:
            with_anchor += 1
            if not target.endswith('.md') or os.path.isdir(target):
                problems.append(f'{f}:{line}: {dest} (an anchor into a file that is not Markdown)')
            elif unquote(anchor) not in anchors(target):
                problems.append(f'{f}:{line}: {dest} (no heading #{anchor} in {target})')
    if problems:
        failed = 1
        for p in problems:
            print(f'not ok - links: {p}')
    else:
        print(f'ok - links: {f}: {checked} relative links resolve ({with_anchor} to a heading)')
# A page's contents list (a "## Contents" section, as the guide's pages have) names every ## and ###
# heading after it, in order, and nothing else.
for page in sys.argv[1:]:
    text = blank_fences(open(page, encoding='utf-8').read())
    if not re.search(r'^## Contents$', text, re.M):
        continue
    after = text.split('\n## Contents\n', 1)[1]
    listed = re.findall(r'^ *- \[.*\]\(#([^)]+)\)$', after.split('\n## ', 1)[0], re.M)
    body = after.split('\n## ', 1)[1] if '\n## ' in after else ''
    seen, heads = {}, []
    for m in re.finditer(r'^(?:##|###) (.*)$', '## ' + body, re.M):
        s = slug(m.group(1))
        n = seen.get(s, 0)
        seen[s] = n + 1
        heads.append(s if n == 0 else f'{s}-{n}')
    if listed != heads:
        failed = 1
        missing = [h for h in heads if h not in listed][:5]
        extra = [h for h in listed if h not in heads][:5]
        print(f'not ok - links: {page}: its contents list differs from its headings (not listed: {missing}; listed, no such heading: {extra})')
    else:
        print(f'ok - links: {page}: its contents list names its {len(heads)} headings in order')
sys.exit(failed)
PY
