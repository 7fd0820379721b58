"""One runner for the kit's Python unit tests: `python3 test_X.py --kit`
prints one line per test in the kit's format (tests/lib.sh: "  ok    NAME",
"  FAIL  NAME: why") and the closing "N passed, N failed", for
tests/unit/run; without --kit, plain unittest."""
import sys
import unittest


def _result(prefix: str):
    class KitResult(unittest.TextTestResult):
        def _name(self, test) -> str:
            return f'{prefix}: {test.id().split(".", 1)[-1]}'

        def addSuccess(self, test):
            super().addSuccess(test)
            self.stream.write(f'  ok    {self._name(test)}\n')

        def _bad(self, test, err):
            msg = self._exc_info_to_string(err, test).strip().split('\n')[-1]
            self.stream.write(f'  FAIL  {self._name(test)}: {msg[:400]}\n')

        def addFailure(self, test, err):
            super().addFailure(test, err)
            self._bad(test, err)

        def addError(self, test, err):
            super().addError(test, err)
            self._bad(test, err)
    return KitResult


def main(module: str, prefix: str) -> None:
    """Run the tests of MODULE (its __name__), named PREFIX: ..."""
    if '--kit' not in sys.argv[1:]:
        unittest.main(module=module)
        return
    suite = unittest.defaultTestLoader.loadTestsFromModule(sys.modules[module])
    res = unittest.TextTestRunner(stream=sys.stdout, verbosity=0, resultclass=_result(prefix)).run(suite)
    bad = len(res.failures) + len(res.errors)
    print(f'{res.testsRun - bad - len(res.skipped)} passed, {bad} failed')
    sys.exit(1 if bad else 0)
