"""Host-only tests of the source policy (grader/swaplab/policy.py): the
lab files read whole, as gcc reads them, against the lab start's.

Every rule of policy.FILE_RULES has a sample it refuses, naming the rule,
and a test that the same sample passes once that rule is taken out of the
list: the sample is caught by that rule and no other.  Honest code (the
reference stages, the alternatives and broken variants) is checked by
tests/unit/policy_corpus.py on the work repository.
"""
import os
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, 'grader'))
sys.path.insert(0, HERE)

from swaplab import policy  # noqa: E402
import kitrun  # noqa: E402

PATH = 'mm/swapfile.c'
START = (b'// SPDX-License-Identifier: GPL-2.0-only\n'
         b'#include <linux/mm.h>\n'
         b'#include "swap.h"\n'
         b'\n'
         b'static void swap_close(struct file *swap_file)\n'
         b'{\n'
         b'\tfilp_close(swap_file, NULL);\n'
         b'}\n')


def refused(add: bytes, rules=None, start: bytes = START) -> list:
    """The violations of START with ADD appended, as 'rule: path:line'."""
    v = policy.source_files({PATH: (start, start + add)}, rules)
    return [f'{x.rule}: {x.path}:{x.line}' for x in v]


def without(rule) -> list:
    return [r for r in policy.FILE_RULES if r is not rule]


# rule function -> (what it refuses, the rule it names, samples added to START)
SAMPLES = {
    policy.rule_nul: ('a NUL byte, which makes git call the file binary', 'NUL byte', [
        b'/* \0 */\n',
        b'const char s[] = "a\0b";\n']),
    policy.rule_cr: ('a CR byte (a backslash before CR LF splices for gcc)', 'CR byte', [
        b'int a;\r\n',
        b'int b = call_user\\\r\nmodehelper;\n']),
    policy.rule_trigraph: ('trigraphs in code and strings, and ??/ in comments', 'trigraph', [
        b'const char *q = "??=";\n',
        b'int a = b ??- c;\n',
        b'/* a comment *??/\n/ int y;\n',
        b'// a comment ??/\nint y;\n']),
    policy.rule_digraph: ('the %: digraph: directives, stringize, paste', 'digraph', [
        b'%:include "/etc/passwd"\n',
        b'%:pragma GCC diagnostic ignored "-Wunused-variable"\n',
        b'  %:  undef spin_lock\n',
        b'%:line 1 "lib/string.c"\n',
        b'#define S(x) %:x\n',
        b'#define P(a, b) a %:%: b\n']),
    policy.rule_raw_string: ('raw string literals (gnu11 reads them; nothing in them is C)', 'raw string literal', [
        b'static const char *s = R"(x)";\n',
        b'static const char *s = u8R"xy(\n/* )xy";\n']),
    policy.rule_lines: ('the line rules, on logical lines: splices (with blanks) joined, comments as gcc ends them',
                        None, [
        (b'int y = call_user\\\nmodehelper(0);\n', 'usermode helper identifiers'),
        (b'enum { n_ = 1, n_COMPILE_OFFSETS = 0 };\nint v = __PASTE(n_, COMPILE_OFFSETS);\n',
         'build context identifiers'),
        (b'#define W defined(LINKER_SCRIPT)\n', 'build context identifiers'),
        (b'static int (*o)(void) __attribute__((weakref("filp_" "open")));\n',
         'symbol aliasing and lookup identifiers'),
        (b'void g(void) __alias(swap_close);\n', 'symbol aliasing and lookup identifiers'),
        (b'int x(void) { return pr_info("\\x6b" __user "unit_do_failed_assertion"); }\n', 'kunit name in a string'),
        (b'int y = call_user\\  \t\nmodehelper(0);\n', 'usermode helper identifiers'),
        (b'/* a comment *\\\n/ int z = filp_open(0, 0, 0);\n', 'file I/O identifiers'),
        (b'/* a comment *\\ \n/ int z = filp_open(0, 0, 0);\n', 'file I/O identifiers'),
        (b'/\\\n* a comment */ int z = fput(0);\n', 'file I/O identifiers'),
        (b'/* \0 */\n#pragma GCC diagnostic ignored "-Wunused-variable"\n', '#pragma'),
        (b'#\\\ninclude "/etc/passwd"\n', '#include'),
        (b'#include </dev/zero>\n', '#include'),
        (b'#if __has_include(<nonexistent/*>)\n#endif\n', '#include'),
        (b'#undef spin_lock\n', '#undef'),
        (b'# 1 "lib/string.c"\n', '#line'),
        (b'asm(".incbin \\"/etc/shadow\\"");\n', 'asm'),
        (b'asm_inline("nop");\n', 'asm'),
        (b'_Pragma("GCC diagnostic ignored \\"-Wall\\"")\n', '#pragma'),
        (b'int q = KUNIT_SUCCESS;\n', 'kunit identifiers'),
        (b'static int f(void) { debug_locks_off(); return 0; }\n', 'lockdep identifiers')]),
    policy.rule_section: ('the section attribute in every spelling, __section() included', 'section attribute', [
        b'static int x __section(".initcall7.init") = 1;\n',
        b'static int x __attribute__ ((section(".data.x"))) = 1;\n',
        b'static int x __attribute__((used, __section__ (".data.x"))) = 1;\n',
        b'static int x __attribute__((\n\tsection\n\t(".data.x"))) = 1;\n',
        b'#define S section\n',
        b'#define S __section\n']),
    policy.rule_paste: ('identifiers that ## pastes together', None, [
        (b'#define PEEK(p) filp_ ## open(p, 0, 0)\n', 'file I/O identifiers'),
        (b'#define H call_user##mode##helper\n', 'usermode helper identifiers'),
        (b'#define D(x) debug_ ## \\\n locks_off()\n', 'lockdep identifiers')]),
    policy.rule_strings: ('adjacent string literals, joined (escapes decoded), that imitate the grader',
                          'imitates the grader', [
        b'static const char *s = "o" "k 1 - lab01";\n',
        b'static const char *s = "    o"\n\t"k 1 lab01_lock_cluster\\n";\n',
        b'static const char *s = "\\x6fk 1 lab01_lock_cluster";\n',
        b'static const char *s = "\\157k 1 - lab01";\n',
        b'static const char *s = "# Sub" "test: x";\n',
        b'static const char *s = "SWAP" "LAB 1234 RESULT x PASS";\n']),
    policy.rule_format: ('a format string whose %s/%c (or a macro among the strings) completes a grader line',
                         'format string imitates the grader', [
        b'void f(void) { pr_info("%sk 1 - lab01_x\\n", "o"); }\n',
        b'void f(void) { pr_info("    o%s 1 lab01_lock_cluster\\n", "k"); }\n',
        b'void f(void) { pr_info("%s 1 lab01_lock_cluster\\n", "ok"); }\n',
        b'void f(void) { pr_info("%c%c 1 lab01_lock_cluster\\n", \'o\', \'k\'); }\n',
        b'void f(void) { pr_info(O "k 1 - lab01_x\\n"); }\n',
        b'void f(void) { pr_info("# Sub%s: swap\\n", "test"); }\n',
        b'void f(void) { pr_info("%-4.2sk 1 lab01_x\\n", "ok"); }\n',
        b'void f(void) { pr_info("SWAP%s 12ab CHECK x\\n", "LAB"); }\n',
        b'void f(void) { pr_info("%s\\x6b 1 lab01_x\\n", "o"); }\n',
        b'void f(void) { pr_info("%\\x73k 1 lab01_x\\n", "o"); }\n']),
}


class Rules(unittest.TestCase):
    """Each rule refuses its samples, by name; without it they pass."""

    def check(self, rule):
        what, name, samples = SAMPLES[rule]
        for s in samples:
            src, want = s if isinstance(s, tuple) else (s, name)
            got = refused(src)
            self.assertTrue(any(g.startswith(f'{want}: {PATH}:') for g in got), f'{what}: {src!r} gave {got}')
            rest = refused(src, without(rule))
            self.assertFalse(any(g.startswith(f'{want}: ') for g in rest),
                             f'{src!r} is refused as {want!r} without {rule.__name__}: {rest}')

    def test_every_rule_has_samples(self):
        self.assertEqual(set(SAMPLES), set(policy.FILE_RULES))


def _make(rule):
    def t(self):
        self.check(rule)
    t.__doc__ = f'{rule.__name__}: {SAMPLES[rule][0]}'
    return t


for _r in SAMPLES:
    setattr(Rules, f'test_{_r.__name__}', _make(_r))


class Reading(unittest.TestCase):
    """The file as gcc reads it."""

    def test_line_numbers_follow_splices_and_comments(self):
        v = policy.source_files({PATH: (START, START + b'/*\n * two\n */ int a;\nint b = call_user\\\nmodehelper;\n')})
        self.assertEqual([(x.rule, x.line) for x in v], [('usermode helper identifiers', 12)])

    def test_a_comment_over_lines_makes_one_line(self):
        # to gcc the #pragma is on the line of int a: no directive, an error
        src = policy.read_c(b'int a; /*\n*/ int b;\n')
        self.assertEqual([r.text for r in src.rows], ['int a;   int b;', ''])

    def test_raw_strings_are_lexed_as_gcc_does(self):
        src = policy.read_c(b'const char *s = R"x( " /* )x"; int code; // */\n')
        self.assertIn('int code;', src.rows[0].text)
        self.assertEqual(src.raws, [1])

    def test_strings_and_chars_hide_no_comment(self):
        src = policy.read_c(b'char c = \'"\'; int a; /* "x" */ const char *s = "/* not a comment */";\n')
        self.assertIn('int a;', src.rows[0].text)
        self.assertIn('"/* not a comment */"', src.rows[0].text)

    def test_unterminated_quote_ends_at_the_line(self):
        # gcc: an unterminated ' or " is a token to the end of the line
        src = policy.read_c(b"#if 0\ndon't /* a\n#endif\nint after;\n")
        self.assertEqual(src.rows[3].text, 'int after;')

    def test_a_byte_order_mark_is_skipped(self):
        # gcc skips it: the line after it is a directive
        v = policy.source_files({PATH: (START, b'\xef\xbb\xbf#include "/etc/passwd"\n' + START)})
        self.assertEqual([(x.rule, x.line) for x in v], [('#include', 1)])

    def test_a_splice_at_the_end_of_the_file_joins_nothing(self):
        self.assertEqual([r.text for r in policy.read_c(b'int a;\\').rows], ['int a;\\'])


class Honest(unittest.TestCase):
    """What honest work writes is not refused."""

    def test_honest_code(self):
        src = (b'/* why not??) */ int x; // it\'s fine ??!\n'
               b'#include <linux/kernel.h>\n#include <asm/page.h>\n'
               b'#define CLUSTER(ci, off) ((ci) + (off) / SWAPFILE_CLUSTER)\n'
               b'#define NAME(x) swap_ ## x\n'
               b'static void f(int a, const char *s)\n{\n'
               b'\tpr_info("%s: %d\\n", s, a);\n\tpr_info("%s %s\\n", s, s);\n'
               b'\tpr_info("%s 5 pages, %d ok\\n", s, a);\n\tpr_err(KERN_INFO "Probing %s\\n", s);\n'
               b'\tpr_debug("[%s] " "%lu\\n", s, 1UL);\n\tpr_warn("swap %s version %d\\n", s, a);\n'
               b'\tif (a < 0 ? 1 : 2) a = a % 3;\n}\n#if 0\ndon\'t\n#endif\n')
        self.assertEqual(refused(src), [])

    def test_the_starts_own_lines_moved(self):
        # #include "swap.h" and filp_close() are the start's: a line that
        # is the start's word for word is not new where a diff shows it
        moved = START.replace(b'#include "swap.h"\n', b'') + b'#include "swap.h"\n\tfilp_close(swap_file, NULL);\n'
        self.assertEqual(policy.source_files({PATH: (START, moved)}), [])

    def test_unchanged_files_have_nothing_added(self):
        self.assertEqual(policy.change(PATH, START, START).added, [])


class Input(unittest.TestCase):
    def test_review_sees_past_a_nul_byte(self):
        flags = policy.review({PATH: (START, START + b'/* \0 */\nEXPORT_SYMBOL(swap_close);\n')})
        self.assertTrue(any(f.startswith('new exported symbols (mm/swapfile.c:10)') for f in flags), flags)
        big = START + b''.join(b'int v%d;\n' % i for i in range(700))
        self.assertIn('large change (700 lines added)', policy.review({PATH: (START, big)}))

    def test_review_names_identifiers_new_to_start_and_reference(self):
        ref = START + b'static int swap_nr;\n'
        new = START + b'static int swap_nr;\nstatic int who(void) { return current->comm[0]; }\n'
        flags = policy.review({PATH: (START, new)}, {PATH: ref})
        want = [f for f in flags if f.startswith('identifiers neither the lab start nor its reference')]
        self.assertEqual(len(want), 1, flags)
        for name in ('who', 'current', 'comm'):
            self.assertIn(f'{name} ({PATH}:', want[0])
        self.assertNotIn('swap_nr', want[0])      # the reference uses it
        self.assertNotIn('static', want[0])       # so does the start
        # the reference itself is never flagged
        self.assertEqual(policy.review({PATH: (START, ref)}, {PATH: ref}), [])

    def test_a_diff_still_works(self):
        diff = ('diff --git a/mm/swapfile.c b/mm/swapfile.c\n--- a/mm/swapfile.c\n+++ b/mm/swapfile.c\n'
                '@@ -9,0 +10,2 @@\n+#pragma GCC diagnostic ignored "-Wall"\n+EXPORT_SYMBOL(f);\n')
        self.assertEqual([f'{v.rule}:{v.line}' for v in policy.source(diff)], ['#pragma:10'])
        self.assertEqual(policy.review(diff), ['new exported symbols (mm/swapfile.c:11)'])

    def test_a_violation_shows_no_control_byte(self):
        v = policy.source_files({PATH: (START, START + b'int a;\r\n/* \0 */\n')})
        self.assertTrue(v)
        for x in v:
            self.assertNotRegex(str(x), '[\x00-\x08\x0a-\x1f]')

    def test_changed_files_reads_the_index(self):
        with tempfile.TemporaryDirectory() as d:
            def g(*a, env=None):
                return subprocess.run(['git', '-C', d, *a], check=True, capture_output=True, env=env).stdout
            g('init', '-q')
            os.makedirs(os.path.join(d, 'mm'))
            with open(os.path.join(d, PATH), 'wb') as f:
                f.write(START)
            g('add', PATH)
            g('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'start')
            env = dict(os.environ, GIT_INDEX_FILE=os.path.join(d, 'private-index'))
            g('read-tree', 'HEAD', env=env)
            blob = subprocess.run(['git', '-C', d, 'hash-object', '-w', '--stdin'], input=START + b'/* \0 */\n',
                                  capture_output=True, check=True).stdout.decode().strip()
            g('update-index', '--cacheinfo', f'100644,{blob},{PATH}', env=env)
            raw = g('diff', '--cached', '--no-renames', '--raw', '-z', 'HEAD', env=env)
            files = policy.changed_files(d, 'HEAD', raw, env)
            self.assertEqual(files, {PATH: (START, START + b'/* \0 */\n')})
            self.assertEqual([v.rule for v in policy.source(files)], ['NUL byte'])


class Bounds(unittest.TestCase):
    """Whatever the input, the policy answers in seconds."""

    def test_the_diff_of_many_equal_lines(self):
        t0 = time.monotonic()
        for new in (START + b'\n' * 200000, START.replace(b'\n', b'\n\n\n\n') * 50, START + b'}\n' * 100000):
            policy.change(PATH, START * 400, new)
        self.assertLess(time.monotonic() - t0, 10)

    def test_added_rows(self):
        self.assertEqual(policy.added_rows(list('abcd'), list('abXcd')), [2])
        self.assertEqual(len(policy.added_rows(list('abcd'), list('dcba'))), 3)
        self.assertEqual(policy.added_rows([], list('ab')), [0, 1])

    def test_format_strings_have_a_budget(self):
        src = b''.join(b'void f%d(void) { pr_info("' % i + b'%s: %d, ' * 24 + b'\\n", a); }\n' for i in range(100))
        t0 = time.monotonic()
        got = refused(src)
        self.assertLess(time.monotonic() - t0, 20)
        self.assertTrue(got and got[0].startswith('format string imitates the grader'), got)

    def test_one_string_of_many_slots_is_read_in_linear_time(self):
        """The red team's 955-KB patch: one literal of 477 156 "%s".  Each
        slot rendered the whole rest of the string again, so its policy
        read took about 14 hours; each try now reads a window around its
        slots.  (Blank-neighboured slots cost no budget, so the budget
        never stopped it.)"""
        for piece, refused_too in ((b'%s', False), (b'%s%c', False), (b'%sok 1 ', True)):
            n = (policy.MAX_BYTES // 2 - len(START)) // len(piece)
            src = b'static const char swp_fmt[] = "' + piece * n + b'";\n'
            t0 = time.monotonic()
            got = refused(src)
            self.assertLess(time.monotonic() - t0, 20, piece)
            self.assertEqual(bool(got), refused_too, (piece, got[:1]))

    def test_a_file_too_large(self):
        self.assertEqual(refused(b'/*' + b'x' * policy.MAX_BYTES + b'*/\n'), [f'file size: {PATH}:0'])


if __name__ == '__main__':
    kitrun.main(__name__, 'policy')
