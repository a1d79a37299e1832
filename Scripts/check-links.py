#!/usr/bin/env python3
"""Checks every relative link and #anchor in README.md and Docs/**/*.md.

    python3 Scripts/check-links.py [FILE.md]...

A link to a file must name a file or directory of the repository; a link
with #anchor must name a heading of its page as GitHub makes anchors of
them (lower case, punctuation but - and _ dropped, spaces as -, a -N suffix
for a repeated heading). Links to other sites (http:, https:, mailto:) are
not fetched. Prints each broken link as FILE:LINE: and exits 1 when there
is one. Python's standard library only.
"""
import os
import re
import sys
import unicodedata

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LINK = re.compile(r'!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+"[^"]*")?\)')
FENCE = re.compile(r'^\s*(```|~~~)')
HEADING = re.compile(r'^(#{1,6})\s+(.*?)\s*#*\s*$')


def pages():
    """README.md and every Markdown file under Docs/, relative to the root."""
    found = ['README.md']
    for directory, _, names in os.walk(os.path.join(ROOT, 'Docs')):
        for name in sorted(names):
            if name.endswith('.md'):
                found.append(os.path.relpath(os.path.join(directory, name), ROOT))
    return found


def lines_outside_code(text):
    """(line number, line) of each line that is not inside a fenced block."""
    fenced = False
    for number, line in enumerate(text.split('\n'), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            yield number, line


def slug(heading):
    """The anchor GitHub gives a heading."""
    text = re.sub(r'`([^`]*)`', r'\1', heading)             # code spans keep their text
    text = re.sub(r'\[([^\]]*)\]\([^)]*\)', r'\1', text)    # links keep their text
    text = re.sub(r'<[^>]+>', '', text)                     # no HTML tags
    text = text.strip().lower()
    kept = []
    for character in text:
        category = unicodedata.category(character)
        if character in '-_' or category[0] in 'LN' or category == 'Mn':
            kept.append(character)
        elif character == ' ':
            kept.append('-')
    return ''.join(kept)


def anchors(path, cache={}):
    """The anchors of the headings of the Markdown file at `path`."""
    if path not in cache:
        seen = {}
        names = set()
        with open(path, encoding='utf-8') as file:
            for _, line in lines_outside_code(file.read()):
                match = HEADING.match(line)
                if not match:
                    continue
                name = slug(match.group(2))
                if name in seen:
                    seen[name] += 1
                    name = f'{name}-{seen[name]}'
                else:
                    seen[name] = 0
                names.add(name)
        cache[path] = names
    return cache[path]


def check(page):
    """The broken links of `page`, as messages."""
    problems = []
    with open(os.path.join(ROOT, page), encoding='utf-8') as file:
        text = file.read()
    for number, line in lines_outside_code(text):
        line = re.sub(r'``[^`]*``|`[^`]*`', '', line)   # links inside code spans are not links
        for match in LINK.finditer(line):
            target = match.group(1)
            if re.match(r'^[a-z][a-z0-9+.-]*:', target):
                continue
            path, _, anchor = target.partition('#')
            resolved = os.path.normpath(os.path.join(ROOT, os.path.dirname(page), path)) if path \
                else os.path.join(ROOT, page)
            where = f'{page}:{number}: {target}'
            if not resolved.startswith(ROOT + os.sep) and resolved != ROOT:
                problems.append(f'{where}: leaves the repository')
            elif not os.path.exists(resolved):
                problems.append(f'{where}: no such file')
            elif anchor:
                if not resolved.endswith('.md') or os.path.isdir(resolved):
                    problems.append(f'{where}: an anchor into something that is not a Markdown page')
                elif anchor not in anchors(resolved):
                    problems.append(f'{where}: no heading "{anchor}" in {os.path.relpath(resolved, ROOT)}')
    return problems


def main():
    chosen = sys.argv[1:] or pages()
    problems = [problem for page in chosen for problem in check(page)]
    for problem in problems:
        print(problem)
    links = len(chosen)
    print(f'{len(problems)} broken link(s) in {links} page(s).' if problems else f'Every link resolves ({links} pages).',
          file=sys.stderr)
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
