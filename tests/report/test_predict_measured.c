/* report.md's cycles per block measured here beside llvm-mca's (bench/report/pb_predict_measured.c): kernels.csv's
 * one-thread L2 batch-1 rows, each beside predict.csv's cycles for the same format and variant on every core of the
 * architecture whose variants ran here; a bound marked, a missing row a dash, the other architecture left out. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_predict.h"
#include "pb_rundata.h"
#include "run_dir.h"
#include "test_files.h"

#define PHEADER "arch,cpu,chip,clock_ghz,format,variant,status,cycles_per_block,gbs_at_clock,core_bw_gbs\n"

/* The section for a run directory holding kernels.csv and, when predict is not NULL, predict.csv; malloc'd. */
static char *section_of(const char *kernels, const char *predict)
{
    char dir[64];
    tf_tmpdir(dir, sizeof dir, "pb-predm");
    tf_write(dir, "kernels.csv", kernels);
    if (predict)
        tf_write(dir, "predict.csv", predict);
    char *s = rd_section(dir, pb_report_predict_measured);
    tf_rmrf(dir);
    return s;
}

Test(predict_measured, measured_cycles_beside_each_cores_prediction)
{
    char *s = section_of(
        "run_id,host,format,variant,batch,threads,level,gbps_median,ghz_before,ghz_after,cycles_per_block\n"
        "r,h,q8_0,avx512,1,1,l2,50,2.4,2.6,12.5\n"
        "r,h,q8_0,avx512,2,1,l2,60,2.4,2.6,20.0\n"  /* batch 2: not shown */
        "r,h,q4_0,avx2,1,1,l2,40,2.5,2.5,30.25\n"
        "r,h,q4_0,avx2,1,2,l2,70,2.5,2.5,31.0\n", /* 2 threads: not shown */
        PHEADER "x86_64,sapphirerapids,S,2.5,q8_0,avx512,ok,10.0,1,1\n"
                "x86_64,znver3,Z,3.5,q8_0,avx512,cpu-lacks-avx512,,1,1\n"
                "x86_64,znver3,Z,3.5,q4_0,avx2,element-loop,8.5,1,1\n"
                "aarch64,cortex-a76,A,2.4,q8_0,neon,ok,9.0,1,1\n");
    cr_expect(strstr(s, "| format | variant | here (GHz) | sapphirerapids | znver3 |\n") != NULL, "%s", s);
    cr_expect(strstr(s, "| q8_0 | avx512 | 12.5 (2.50) | 10.0 | - |\n") != NULL, "%s", s);
    cr_expect(strstr(s, "| q4_0 | avx2 | 30.2 (2.50) | - | ≥8.5 |\n") != NULL, "%s", s);
    cr_expect(strstr(s, "cortex-a76") == NULL, "another architecture's cores are left out: %s", s);
    cr_expect_eq(tf_count(s, "| q"), 2, "one-thread L2 batch-1 rows only: %s", s);
    free(s);
}

Test(predict_measured, nothing_without_predict_csv)
{
    char *s = section_of("run_id,host,format,variant,batch,threads,level,gbps_median,cycles_per_block\n"
                         "r,h,q8_0,avx512,1,1,l2,50,12.5\n",
                         NULL);
    cr_expect_str_eq(s, "");
    free(s);
}

/* A repacked layout's row meets the prediction for its own layout, the file's row the file's; tables without a
 * layout column read as the file's. */
Test(predict_measured, each_layout_beside_its_own_prediction)
{
    char *s = section_of(
        "run_id,host,format,variant,batch,threads,level,gbps_median,ghz_before,ghz_after,cycles_per_block,layout\n"
        "r,h,q8_0,avx512,1,1,l2,50,2.5,2.5,12.5,file\n"
        "r,h,q8_0,avx512,1,1,l2,90,2.5,2.5,7.0,q8_0_r16\n",
        "arch,cpu,chip,clock_ghz,format,variant,status,cycles_per_block,gbs_at_clock,core_bw_gbs,layout\n"
        "x86_64,sapphirerapids,S,2.5,q8_0,avx512,branchy,6.0,1,1,q8_0_r16\n"
        "x86_64,sapphirerapids,S,2.5,q8_0,avx512,ok,10.0,1,1,file\n");
    cr_expect(strstr(s, "| q8_0 | avx512 | 12.5 (2.50) | 10.0 |\n") != NULL, "%s", s);
    cr_expect(strstr(s, "| q8_0 | avx512 q8_0_r16 | 7.0 (2.50) | 6.0 |\n") != NULL, "%s", s);
    free(s);
}
