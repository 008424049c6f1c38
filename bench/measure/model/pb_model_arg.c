/* pb_model_arg.c — see pb_model_arg.h. */
#include "pb_model_arg.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "pb_err.h"
#include "pb_mapguard.h"

/* A preset, or the file's shape with its format as the run's one format. */
static int ma_model(pb_model_arg *a, const char *text, pb_list *formats, char *err, size_t errlen)
{
    pb_model_id id;
    if (!text || pb_model_parse(text, &id) == 0) {
        a->model = pb_model_get(text ? id : PB_MODEL_QWEN3_0_6B);
        if (formats->n == 0)
            formats->v[formats->n++] = KERN_Q8_0;
        return 0;
    }
    struct stat st;
    if (stat(text, &st) != 0)
        return pb_errf(err, errlen, "--model %s: neither a preset (%s, %s, %s) nor a file (%s)", text,
                       pb_model_names[0], pb_model_names[1], pb_model_names[2], strerror(errno));
    if (formats->n > 0)
        return pb_errf(err, errlen, "--format: not with a model file (%s): its tensors keep their own types", text);
    char why[1024];
    if (pb_model_file_open(&a->file, text, why, sizeof why) != 0)
        return pb_errf(err, errlen, "--model: %s", why);
    a->is_file = true;
    /* The file stays mapped while the run reads it (--mmap: every token): one truncated under the run must end
     * it with a line naming the file, not a SIGBUS. */
    if (a->file.g.map && pb_mapguard_arm(a->file.g.map, a->file.g.size) != 0)
        return pb_errf(err, errlen, "--model %s: cannot guard its mapping: %s", text, strerror(errno));
    a->model = &a->file.shape;
    formats->v[formats->n++] = a->file.fmt[0];
    return 0;
}

int pb_model_arg_resolve(pb_model_arg *a, const char *text, pb_list *formats, pb_list *contexts, pb_list *kv_types,
                         char *err, size_t errlen)
{
    memset(a, 0, sizeof *a);
    if (ma_model(a, text, formats, err, errlen) != 0)
        return -1;
    if (contexts->n == 0)
        contexts->v[contexts->n++] = 0;
    if (kv_types->n == 0)
        kv_types->v[kv_types->n++] = PB_KV_F16;
    for (int k = 0; k < kv_types->n; k++)
        if (pb_kv_bytes(a->model, (pb_kv_type)kv_types->v[k], 1, 0) == 0)
            return pb_errf(err, errlen, "--kv-type %s: %s's heads are %llu values, not a multiple of its block",
                           pb_kv_type_names[kv_types->v[k]], a->model->name, (unsigned long long)a->model->head_dim);
    return 0;
}

void pb_model_arg_close(pb_model_arg *a)
{
    if (a->is_file) {
        pb_mapguard_disarm();
        pb_model_file_close(&a->file);
    }
    memset(a, 0, sizeof *a);
}
