"""Host-only tests of the policy on what the compiler reads
(grader/swaplab/cpolicy.py), on small synthetic `gcc -E -dD` outputs: each
rule refuses its sample, naming itself, and stays silent on the start.
scripts/cpp-policy runs the same code on real dumps (tests/hostile/compiler).
"""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, 'grader'))
sys.path.insert(0, HERE)

from swaplab import cpolicy  # noqa: E402
import kitrun  # noqa: E402

PATH = 'mm/swapfile.c'
HEAD = '''# 1 "/src/linux/mm/swapfile.c"
# 1 "/src/linux/include/linux/swap.h" 1
#define SWAP_BATCH 64
#define SWAP_MAP_MAX 0x3e
#define swp_offset(e) ((e).val)
extern int call_usermodehelper(const char *path, char **argv, char **envp, int wait);
# 2 "/src/linux/mm/swapfile.c" 2
#define SWAPFILE_CLUSTER 256
#define LATENCY_LIMIT 256
static int scan(int n) { return n + 1; }
'''
SUITE = '''#define SWAPLAB_LAB 1
# 1 "/src/linux/mm/swaplab_kunit.c" 1
# 1 "/src/linux/include/linux/debugfs.h" 1
#define _DEBUGFS_H_ 
# 2 "/src/linux/mm/swaplab_kunit.c" 2
static void lab01_case(void) { if (__builtin_expect(!!(scan(SWAP_BATCH) == 65), 1)) seq_printf(0, "x"); }
'''


def unit(extra: str = '', head: str = HEAD) -> cpolicy.Unit:
    return cpolicy.parse(head + extra + SUITE)


START = unit()
SUITE_IDS = {'lab01_case', 'scan', 'SWAP_BATCH', 'seq_printf', '__builtin_expect'}


def rules(extra: str = '', head: str = HEAD, sanctioned=frozenset(), own=(PATH, 'include/linux/swap.h')):
    return [v.rule for v in cpolicy.check(START, unit(extra, head), set(sanctioned), list(own), PATH, SUITE_IDS)]


class Macros(unittest.TestCase):
    def test_the_start_is_silent(self):
        self.assertEqual(rules(), [])

    def test_a_redefined_builtin(self):
        self.assertEqual(rules('#define __builtin_expect(x, y) (1)\n'), ['macro could rewrite the suite'])

    def test_a_wrapped_formatting_function(self):
        self.assertEqual(rules('#define seq_printf(m, ...) seq_puts(m, "0")\n'), ['macro could rewrite the suite'])

    def test_a_function_the_suite_calls_repointed(self):
        self.assertEqual(rules('#define scan(n) 65\n'), ['macro could rewrite the suite'])

    def test_an_integer_constant_under_a_used_name(self):
        self.assertEqual(rules('#define lab01_case 0\n'), ['macro could rewrite the suite'])

    def test_a_new_constant_under_a_new_name_passes(self):
        self.assertEqual(rules('#define MY_LIMIT 5\n#define MY_TWICE (2 * MY_LIMIT)\n'), [])

    def test_a_new_object_macro_that_is_no_constant(self):
        self.assertEqual(rules('#define MY_FN scan\n'), ['macro could rewrite the suite'])

    def test_a_retuned_constant_the_suite_does_not_read(self):
        self.assertEqual(rules(head=HEAD.replace('LATENCY_LIMIT 256', 'LATENCY_LIMIT 128')), [])

    def test_a_retuned_constant_the_suite_reads(self):
        self.assertEqual(rules(head=HEAD.replace('SWAP_BATCH 64', 'SWAP_BATCH 1')), ['macro could rewrite the suite'])

    def test_a_retuned_constant_the_suite_reads_through_another(self):
        head = HEAD.replace('#define SWAP_BATCH 64', '#define BATCH_SHIFT 6\n#define SWAP_BATCH (1 << BATCH_SHIFT)')
        global START
        saved, START = START, unit(head=head)
        try:
            self.assertEqual(rules(head=head.replace('BATCH_SHIFT 6', 'BATCH_SHIFT 0')),
                             ['macro could rewrite the suite'])
        finally:
            START = saved

    def test_a_removed_macro(self):
        self.assertEqual(rules(head=HEAD.replace('#define SWAPFILE_CLUSTER 256\n', '')),
                         ['macro could rewrite the suite'])

    def test_a_macro_the_reference_writes(self):
        body = '#define swp_offset(e) ((e).val & 0xff)\n'
        self.assertEqual(rules(head=HEAD.replace('#define swp_offset(e) ((e).val)\n', body),
                               sanctioned={'swp_offset'}), [])

    def test_a_macro_the_reference_writes_may_not_see_its_position(self):
        body = '#define swp_offset(e) ((e).val + (__LINE__ > 4000))\n'
        self.assertEqual(rules(head=HEAD.replace('#define swp_offset(e) ((e).val)\n', body),
                               sanctioned={'swp_offset'}), ['macro uses a position builtin'])

    def test_the_guard_of_a_header_the_suite_includes(self):
        # only a directive names it: a header first included by the suite
        self.assertEqual(rules('#define _DEBUGFS_H_ 1\n'), ['macro could rewrite the suite'])

    def test_a_macro_the_reference_writes_may_not_see_its_caller(self):
        for how in ('__func__[0] == \'l\'', '__builtin_FUNCTION()[0]', '__builtin_LINE() > 4000'):
            body = f'#define swp_offset(e) ((e).val + ({how}))\n'
            self.assertEqual(rules(head=HEAD.replace('#define swp_offset(e) ((e).val)\n', body),
                                   sanctioned={'swp_offset'})[:1], ['macro uses a position builtin'], how)

    def test_the_include_point_must_be_there(self):
        sub = cpolicy.parse(HEAD)
        self.assertEqual([v.rule for v in cpolicy.check(START, sub, set(), [PATH], PATH, SUITE_IDS)],
                         ['what the compiler reads'])


class Tokens(unittest.TestCase):
    def test_a_pasted_usermode_helper(self):
        self.assertEqual(rules('static void f(void) { call_usermodehelper(0, 0, 0, 0); }\n'),
                         ['usermode helper identifiers in what the compiler reads'])

    def test_joined_strings_imitating_ktap(self):
        self.assertEqual(rules('static void f(void) { printk("\\001" "6" "o" "k 1 - lab01_case\\n"); }\n'),
                         ['imitates the grader (in what the compiler reads)'])

    def test_a_weak_reference_or_alias_by_name(self):
        # the red team's weakref attack of 2026-12-07: a function reached
        # through a name in a string, which no identifier rule reads
        for a in ('__attribute__((weakref("filp_" "open")))', '__attribute__((__alias__("g2")))',
                  '__attribute__((ifunc("r")))'):
            self.assertEqual(rules(f'static void g(void) {a};\n'),
                             ['symbol aliasing and lookup identifiers in what the compiler reads'], a)
        self.assertEqual(rules('static void f(void) { kallsyms_lookup_name("filp_open"); }\n'),
                         ['symbol aliasing and lookup identifiers in what the compiler reads'])

    def test_a_kit_name_spelled_by_escapes_in_joined_literals(self):
        # each literal's escapes decoded before joining: "\x6b" "unit"
        self.assertEqual(rules('static void f(void) { printk("\\x6b" "unit_do_failed_assertion"); }\n'),
                         ['imitates the grader (in what the compiler reads)'])
        self.assertEqual(rules('static void f(void) { printk("\\x6" "b"); }\n'), [])

    def test_a_new_section(self):
        self.assertEqual(rules('static int v __attribute__((__section__(".initcall" "7.init")));\n'),
                         ['section (in what the compiler reads)'])

    def test_a_pragma(self):
        self.assertEqual(rules('#pragma GCC diagnostic ignored "-Wunused-function"\n'),
                         ['#pragma (in what the compiler reads)'])

    def test_a_debugfs_file_made_through_a_paste(self):
        self.assertEqual(rules('static void f(void) { debugfs_create_dir(0, 0); }\n'),
                         ['debugfs and proc file identifiers in what the compiler reads'])

    def test_a_lockdep_identifier_the_start_never_uses(self):
        self.assertEqual(rules('static void f(void) { debug_locks_off(); }\n'),
                         ['lockdep identifiers in what the compiler reads'])

    def test_an_asm_line_for_a_generated_header(self):
        # the red team's linker-script attack: "->" lines that kbuild
        # copies from asm-offsets.s into asm-offsets.h, a splice in them
        self.assertEqual(rules('static void __attribute__((__used__)) n(void) { if (0) asm volatile('
                               '"# ALT: oldnstr\\n661:\\n\\t" "\\n->\\t#if\\tdefined(LINKER_SCRIPT)\\n->ku\\\\\\n'
                               '->nit_do_failed_assertion\\t=\\tswap_stat_flush;\\n" ::: "memory"); }\n'),
                         ['asm (in what the compiler reads)'])

    def test_an_asm_directive_or_a_kunit_name(self):
        for t in ('".set kunit_do_failed_assertion, f"', '"1:\\n\\t.incbin \\"/etc/shadow\\""',
                  '"ku" "nit_do_failed_assertion"', '".pushsection .kunit_test_suites"'):
            self.assertIn('asm (in what the compiler reads)', rules(f'asm({t});\n'), t)
        # an asm label is a template too
        self.assertIn('asm (in what the compiler reads)',
                      rules('extern void g(void) __asm__("kunit_do_failed_assertion");\n'))

    def test_instructions_and_labels_pass_and_the_starts_templates_pass(self):
        self.assertEqual(rules('static void f(int *p) { asm volatile("lock; incl %0" : "+m" (*p)); '
                               'asm volatile("1:\\tpause\\n\\tjmp 1b"); }\n'), [])
        head = HEAD + 'static void h(void) { asm volatile("661:\\n\\t.pushsection .altinstructions"); }\n'
        start = cpolicy.parse(head + SUITE)
        sub = cpolicy.parse(head + 'static void k(void) { asm volatile("661:\\n\\t.pushsection .altinstructions"); }\n'
                            + SUITE)
        self.assertEqual(cpolicy.check(start, sub, set(), [PATH], PATH, SUITE_IDS), [])
        # the kernel's templates carry __COUNTER__ and __LINE__: numbers move
        init = 'asm(".section \\".initcall4.init\\", \\"a\\"\\n__initcall__kmod_swapfile__{}_{}_swapfile_init4:");\n'
        start = cpolicy.parse(HEAD + init.format(369, 3583) + SUITE)
        sub = cpolicy.parse(HEAD + init.format(381, 3615) + SUITE)
        self.assertEqual(cpolicy.check(start, sub, set(), [PATH], PATH, SUITE_IDS), [])

    def test_what_the_suite_does_after_the_include_point_is_not_the_submission(self):
        # the suite's own strings and identifiers are not counted
        self.assertNotIn('lab01_case', START.before)


class Constants(unittest.TestCase):
    def test_is_int_constant(self):
        t = cpolicy.parse('#define A 4\n#define B (A << 2)\n#define C scan\n').macros
        self.assertTrue(cpolicy.is_int_constant('(B * 2 + 0x10UL)', t))
        self.assertFalse(cpolicy.is_int_constant('C', t))
        self.assertFalse(cpolicy.is_int_constant('', t))


if __name__ == '__main__':
    kitrun.main(__name__, 'cpolicy')
