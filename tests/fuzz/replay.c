/*
 * replay FILE...: runs a libFuzzer target's LLVMFuzzerTestOneInput() over
 * each file, without libFuzzer, so that the inputs that once found a bug
 * (tests/fuzz/regressions/NAME/) are checked by `make check` on any
 * machine, with gcc.  Linked with tests/fuzz/fuzz-NAME.c; a broken
 * contract aborts, as under the fuzzer.  Prints "ok FILE" for each.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		uint8_t *data = NULL;
		size_t size = 0, cap = 0, n;

		if (!f) {
			perror(argv[i]);
			return 1;
		}
		do {
			if (size == cap) {
				cap = cap ? cap * 2 : 65536;
				data = realloc(data, cap);
				if (!data)
					abort();
			}
			n = fread(data + size, 1, cap - size, f);
			size += n;
		} while (n);
		if (ferror(f)) {
			perror(argv[i]);
			return 1;
		}
		fclose(f);
		LLVMFuzzerTestOneInput(data, size);
		free(data);
		printf("ok %s\n", argv[i]);
	}
	return 0;
}
