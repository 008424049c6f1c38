/* scripts/predict_loop.awk (make predict's hot-loop finder) on hand-written GCC-shaped assembly: out-of-line
 * prefetch-hint blocks that jump back into a loop, in chains and with labels inside them, are detours, not loops,
 * so the loop is found whole; a loop whose back jump ends an else block entered from its body stays a loop. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "test_files.h"

/* A loop (.L10 .. jne .L10) of three multiplies whose two hint tests jump to blocks placed after its exit: the
 * temporal one's block has a label inside it (.L31, entered from the near one's chain), and the near one's block
 * tests the temporal hint again and jumps to a second-level block (.L21), entered only from it. */
static const char hint_chain[] = "\t.text\n"
                                 "kfn:\n"
                                 "\tmovl\t$4, %edx\n"
                                 ".L10:\n"
                                 "\tvpdpbusd\t%zmm1, %zmm2, %zmm3\n"
                                 "\ttestb\t%r13b, %r13b\n"
                                 "\tjne\t.L20\n"
                                 "\ttestb\t%sil, %sil\n"
                                 "\tjne\t.L30\n"
                                 "\tprefetchnta\t(%r14)\n"
                                 ".L11:\n"
                                 "\tprefetchnta\t(%rcx)\n"
                                 ".L12:\n"
                                 "\tvpdpbusd\t%zmm1, %zmm2, %zmm4\n"
                                 "\tvpdpbusd\t%zmm1, %zmm2, %zmm5\n"
                                 "\taddq\t$64, %rcx\n"
                                 "\tsubl\t$1, %edx\n"
                                 "\tjne\t.L10\n"
                                 "\tret\n"
                                 ".L30:\n"
                                 "\tprefetcht2\t(%r14)\n"
                                 ".L31:\n"
                                 "\tprefetcht2\t(%rcx)\n"
                                 "\tjmp\t.L12\n"
                                 ".L20:\n"
                                 "\tprefetcht0\t(%r9)\n"
                                 "\ttestb\t%sil, %sil\n"
                                 "\tjne\t.L21\n"
                                 "\tprefetchnta\t(%r14)\n"
                                 "\tjmp\t.L11\n"
                                 ".L21:\n"
                                 "\tprefetcht2\t(%r14)\n"
                                 "\tjmp\t.L31\n"
                                 "\t.size\tkfn, .-kfn\n";

/* A loop of two multiplies with an else block after its exit that does the loop's own work and jumps back: the
 * branch into it comes from the loop's body, so it is a second back edge of one loop (branchy), not a detour. */
static const char else_block[] = "\t.text\n"
                                 "kfn:\n"
                                 ".L40:\n"
                                 "\tvpdpbusd\t%zmm1, %zmm2, %zmm3\n"
                                 "\ttestb\t%al, %al\n"
                                 "\tjne\t.L42\n"
                                 "\tvpdpbusd\t%zmm1, %zmm2, %zmm4\n"
                                 ".L41:\n"
                                 "\tsubl\t$1, %edx\n"
                                 "\tjne\t.L40\n"
                                 "\tret\n"
                                 ".L42:\n"
                                 "\tvpdpbusd\t%zmm1, %zmm2, %zmm5\n"
                                 "\tjmp\t.L41\n"
                                 "\t.size\tkfn, .-kfn\n";

/* predict_loop.awk's line for kfn in asm (step 64): "status stride_seen insns s e", and the body it wrote. */
static void find_loop(const char *asm_text, char *line, size_t len, char *body, size_t blen)
{
    char dir[64], cmd[512];
    tf_tmpdir(dir, sizeof dir, "pbloop");
    tf_write(dir, "k.s", asm_text);
    snprintf(cmd, sizeof cmd,
             "awk -v fn=kfn -v isa=x86 -v step=64 -v inner=0 -v out=%s/loop.s -f scripts/predict_loop.awk %s/k.s", dir,
             dir);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    cr_assert_not_null(fgets(line, (int)len, p), "no output from: %s", cmd);
    cr_assert_eq(pclose(p), 0, "%s", cmd);
    snprintf(body, blen, "%s", tf_slurp("%s/loop.s", dir));
    cr_assert_eq(tf_rmrf(dir), 0);
}

static int count(const char *s, const char *what)
{
    int n = 0;
    for (const char *at = strstr(s, what); at; at = strstr(at + 1, what))
        n++;
    return n;
}

Test(predict_loop, hint_blocks_in_chains_are_detours_not_loops)
{
    char line[128], body[4096];
    find_loop(hint_chain, line, sizeof line, body, sizeof body);
    cr_assert_eq(strncmp(line, "ok yes ", 7), 0, "one clean loop, its step seen: %s", line);
    cr_expect_eq(count(body, "vpdpbusd"), 3, "the loop's three multiplies:\n%s", body);
    cr_expect_eq(count(body, "prefetcht"), 0, "no out-of-line block in the loop's text:\n%s", body);
}

Test(predict_loop, an_else_block_back_into_the_loop_is_part_of_it)
{
    char line[128], body[4096];
    find_loop(else_block, line, sizeof line, body, sizeof body);
    cr_assert_eq(strncmp(line, "branchy ", 8), 0, "one loop of two back edges: %s", line);
    cr_expect_eq(count(body, "vpdpbusd"), 3, "both paths' multiplies:\n%s", body);
}
