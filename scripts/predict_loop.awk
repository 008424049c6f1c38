# predict_loop.awk — finds the hot loop of one function in GCC's -S output and writes its body for llvm-mca.
# Used by scripts/predict.sh (make predict); POSIX awk (mawk and gawk both run it).
#
#   awk -v fn=NAME -v isa=x86|arm -v step=BYTES -v inner=N -v out=FILE -f predict_loop.awk FILE.s
#
# A loop is a back edge: a branch at line e to a local label defined earlier at line s of the same function
# (GCC lays a loop out as label .. body .. conditional branch back). The hot loop is an innermost computing loop
# (one holding multiply-type SIMD instructions, the arithmetic of a matvec step, with no such loop inside it) that
# holds the most of them: the loop that runs once per step of the 4-row pass, not the one-row remainder's, which
# holds a quarter of them; the tighter one on a tie.
#
# Loops whose back-edge ranges cross (GCC's rotated loops with the header at the bottom, a body with out-of-line
# blocks such as the x86 streaming passes' prefetch-hint branch) are merged into one region first; a clean loop
# (one back edge) ranks above a merged one.
#
# The status, printed first (scripts/predict.sh copies it into predict.csv and checks the step's multiply count
# against the source's on top):
#   ok       one back edge, no loop inside (or, with inner=N, the loops inside written N times)
#   branchy  a merged region: its straight-line text, each instruction once, is what llvm-mca sees
#   nested   loops run inside the hot loop and inner=0: llvm-mca sees each inner body once, so the cycles are a
#            lower bound
#   none     no loop with multiply-type instructions in the function (or no such function)
# With inner=N (N > 0) the hot loop is the tightest region around the innermost computing loops (a constant loop
# GCC kept rolled inside the step, trip count N from the source), and each loop directly inside it is written N
# times.
#
# stdout: "status stride_seen insns s e": stride_seen yes when an add/sub/lea immediate of the loop equals step (the
# weight bytes one row of the pass consumes per iteration, from predict.sh's table); insns: instructions written to
# out, after any inner copies; s, e: the region's lines in the .s file.

function is_mul(op) {
    if (isa == "x86")
        return op ~ /^(vpmaddubsw|vpmaddwd|vpdpbusds?|vpdpwssds?|vfn?madd[0-9]*[ps][sd]|vmulps|pmaddubsw|pmaddwd)$/
    return op ~ /^(fmla|sdot|udot|smmla|ummla|smull2?|smlal2?|sadalp|mul|madd|fmadd|mla)$/
}

function is_branch(op) {
    if (isa == "x86")
        return op ~ /^j[a-z]+$/
    return op ~ /^(b|b\.?(eq|ne|cs|hs|cc|lo|mi|pl|vs|vc|hi|ls|ge|lt|gt|le)|cbz|cbnz|tbz|tbnz)$/
}

# The immediates an address-advancing instruction at line k adds (x86: add/sub/lea; arm: add/sub), into imm[].
function collect_imm(k,    t, n, i, v) {
    t = text[k]
    if (isa == "x86") {
        if (op[k] ~ /^(add|sub)[lq]?$/ && match(t, /\$-?[0-9]+,/)) {
            v = substr(t, RSTART + 1, RLENGTH - 2) + 0
            imm[v < 0 ? -v : v] = 1
        } else if (op[k] ~ /^lea[lq]?$/ && match(t, /[ \t,]-?[0-9]+\(/)) {
            v = substr(t, RSTART + 1, RLENGTH - 2) + 0
            imm[v < 0 ? -v : v] = 1
        }
    } else if (op[k] ~ /^(add|sub)$/) {
        n = split(t, f, /[ \t,]+/)
        v = f[n]
        sub(/^#/, "", v)
        if (v ~ /^-?[0-9]+$/) {
            v += 0
            imm[v < 0 ? -v : v] = 1
        }
    }
}

# Region i ranks above region b: one back edge (a clean loop) before a merged one, then more multiply-type
# instructions, then the tighter span.
function better(i, b) {
    if ((redges[i] == 1) != (redges[b] == 1)) return redges[i] == 1
    if (cnt[i] != cnt[b]) return cnt[i] > cnt[b]
    return re[i] - rs[i] < re[b] - rs[b]
}

BEGIN { nl = 0; nb = 0; infn = 0 }

# A function starts at its global label; the next global label or its .size ends it.
/^[A-Za-z_][A-Za-z0-9_.]*:/ {
    name = substr($1, 1, length($1) - 1)
    if (infn) infn = 0
    if (name == fn) { infn = 1; found = 1 }
    next
}
!infn { next }
/^\t\.size/ { infn = 0; next }
/^\.L[A-Za-z0-9_]*:/ { lab[substr($1, 1, length($1) - 1)] = NR; labat[NR] = substr($1, 1, length($1) - 1); next }
/^\t\./ { next }
# an instruction; GCC writes AVX-VNNI's VEX forms behind a "{vex}" pseudo-prefix (kept in the text: llvm-mca reads it)
/^\t(\{vex\} )?[a-z]/ {
    m = $1 == "{vex}" ? $2 : $1
    ins[NR] = 1
    op[NR] = m
    text[NR] = $0
    last = NR
    if (is_mul(m)) mul[NR] = 1
    if (is_branch(m)) { nb++; bline[nb] = NR; btarget[nb] = $NF }
    if (is_branch(m) && ($NF in lab)) { nl++; ls[nl] = lab[$NF]; le[nl] = NR }
}

# An instruction after which nothing falls through: an unconditional jump or a return.
function ends_flow(o) {
    if (isa == "x86")
        return o ~ /^(jmp|retq?)$/
    return o ~ /^(b|ret)$/
}

# A back edge from line e to line s that is a detour, not a loop: an unconditional jump ending an out-of-line block
# (its first label follows a jump or a return, so nothing falls into it; labels inside it may be entered too) that
# only branches from outside s..e, or from other such blocks (ool: a detour's lines), enter, as the prefetch-hint
# branch's block placed after a loop's exit jumps back into the loop's body, and the second hint's blocks entered
# from the first's. A block holding a multiply-type instruction does the loop's own work (an else path): never a
# detour. Inside another loop, a detour would otherwise count as the innermost loop. Sets dstart, the block's first
# line.
function detour(s, e,    b, k, i) {
    if (op[e] != "jmp") return 0
    for (b = e - 1; b > s; b--) {
        if (!(b in labat)) continue
        for (i = 1; i <= nb; i++)
            if (btarget[i] == labat[b] && bline[i] >= s && bline[i] <= e && !ool[bline[i]]) return 0
        for (k = b - 1; k > s && !ins[k]; k--) ;
        if (ins[k] && ends_flow(op[k])) {
            for (k = b; k <= e; k++) if (mul[k]) return 0
            dstart = b
            return 1
        }
        if (k <= s) return 0
    }
    return 0
}

END {
    if (!found) { print "none no 0 0 0"; exit }
    # merge back edges whose ranges overlap without nesting: one loop with several back edges or entries
    # (GCC's rotated loops with a header at the bottom, or a body with out-of-line blocks)
    found_detour = 1
    while (found_detour) { # a detour's lines can make another block entered from them a detour
        found_detour = 0
        for (i = 1; i <= nl; i++)
            if (!isdetour[i] && detour(ls[i], le[i])) {
                isdetour[i] = 1
                found_detour = 1
                for (k = dstart; k <= le[i]; k++) ool[k] = 1
            }
    }
    nr = 0
    for (i = 1; i <= nl; i++) if (!isdetour[i]) { nr++; rs[nr] = ls[i]; re[nr] = le[i]; redges[nr] = 1 }
    changed = 1
    while (changed) {
        changed = 0
        for (i = 1; i <= nr && !changed; i++) for (j = i + 1; j <= nr && !changed; j++) {
            if (rs[i] == rs[j] && re[i] == re[j]) same = 1; else same = 0
            cross = (rs[j] > rs[i] && rs[j] <= re[i] && re[j] > re[i]) || (rs[i] > rs[j] && rs[i] <= re[j] && re[i] > re[j])
            if (same || cross) {
                if (rs[j] < rs[i]) rs[i] = rs[j]
                if (re[j] > re[i]) re[i] = re[j]
                redges[i] += redges[j]
                rs[j] = rs[nr]; re[j] = re[nr]; redges[j] = redges[nr]; nr--
                changed = 1
            }
        }
    }
    for (i = 1; i <= nr; i++) {
        c = 0
        for (k = rs[i]; k <= re[i]; k++) if (mul[k]) c++
        cnt[i] = c
    }
    # inside(i, j): region j strictly inside region i
    # L0: computing regions with no computing region inside
    for (i = 1; i <= nr; i++) {
        l0[i] = cnt[i] > 0
        for (j = 1; j <= nr; j++)
            if (j != i && cnt[j] > 0 && rs[j] >= rs[i] && re[j] <= re[i]) l0[i] = 0
    }
    for (i = 1; i <= nr; i++) {
        cand[i] = 0
        if (inner + 0 <= 0) { cand[i] = l0[i]; continue }
        # the tightest region around an L0 region
        for (j = 1; j <= nr; j++) {
            if (!l0[j] || j == i || !(rs[j] >= rs[i] && re[j] <= re[i])) continue
            tight = 1
            for (k = 1; k <= nr; k++)
                if (k != i && k != j && rs[k] >= rs[i] && re[k] <= re[i] && rs[j] >= rs[k] && re[j] <= re[k]) tight = 0
            if (tight) cand[i] = 1
        }
    }
    best = 0
    for (i = 1; i <= nr; i++)
        if (cand[i] && (best == 0 || better(i, best)))
            best = i
    if (best == 0) { print "none no 0 0 0"; exit }
    s = rs[best]; e = re[best]
    status = redges[best] > 1 ? "branchy" : "ok"
    nin = 0
    for (i = 1; i <= nr; i++)
        if (i != best && rs[i] >= s && re[i] <= e) { nin++; is_[nin] = rs[i]; ie[nin] = re[i] }
    for (i = 1; i <= nin; i++) {
        top[i] = 1
        for (j = 1; j <= nin; j++)
            if (j != i && is_[j] <= is_[i] && ie[i] <= ie[j]) top[i] = 0
    }
    if (nin > 0 && inner + 0 <= 0) status = "nested"
    n = 0
    printf "" > out
    for (k = s; k <= e; k++) {
        skip = 0
        for (i = 1; i <= nin; i++) if (top[i] && inner + 0 > 0 && k >= is_[i] && k <= ie[i]) skip = i
        if (skip) {
            if (k == is_[skip])
                for (r = 0; r < inner; r++)
                    for (kk = is_[skip]; kk <= ie[skip]; kk++) if (ins[kk]) { print text[kk] > out; n++ }
            if (ins[k]) collect_imm(k)
            continue
        }
        if (ins[k]) { print text[k] > out; n++; collect_imm(k) }
    }
    close(out)

    print status, ((step + 0) in imm) ? "yes" : "no", n, s, e
}
