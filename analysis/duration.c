/*
 * analysis/duration.c — durations for people and for deadlines: "5ms",
 * "10.7us", "800 us" parsed exactly into int64 nanoseconds (a value finer
 * than 1 ns or past int64 is refused, never rounded), and formatted back
 * with 3 significant digits.  Declared in include/ompdag/report.h; it lives
 * in the analysis library so that the front end checks `#pragma ompdag
 * deadline(...)` with the same rules as `--deadline` and `check`.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ompdag/report.h"

int64_t ompdag_time_unit_ns(const char *unit)
{
    if (!unit || !strcmp(unit, "ns")) return 1;
    if (!strcmp(unit, "us")) return 1000;
    if (!strcmp(unit, "ms")) return 1000000;
    if (!strcmp(unit, "s")) return 1000000000;
    return 0;
}

ompdag_status ompdag_duration_parse(const char *text, int64_t *ns, ompdag_error *err)
{
    const char *p = text ? text : "";
    unsigned __int128 whole = 0, frac = 0, frac_scale = 1;
    int digits = 0;
    for (; isdigit((unsigned char)*p); ++p, ++digits)
        if ((whole = whole * 10 + (unsigned)(*p - '0')) > (unsigned __int128)INT64_MAX)
            return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "duration '%s' is too large", text);
    if (*p == '.') {
        for (++p; isdigit((unsigned char)*p); ++p, ++digits) {
            if (frac_scale > (unsigned __int128)1000000000000000000ULL)
                return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT,
                                        "duration '%s' has too many decimals", text);
            frac = frac * 10 + (unsigned)(*p - '0');
            frac_scale *= 10;
        }
    }
    while (*p == ' ')
        ++p;
    int64_t unit = *p ? ompdag_time_unit_ns(p) : 0;
    if (!digits || !unit)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT,
                                "bad duration '%s' (want a number and a unit: ns, us, ms, s; "
                                "e.g. 5ms or 10.7us)",
                                text ? text : "");
    unsigned __int128 f = frac * (unsigned)unit;
    if (f % frac_scale)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "duration '%s' is finer than 1 ns", text);
    unsigned __int128 total = whole * (unsigned)unit + f / frac_scale;
    if (total > (unsigned __int128)INT64_MAX)
        return ompdag_error_set(err, OMPDAG_ERR_ARGUMENT, "duration '%s' is too large", text);
    *ns = (int64_t)total;
    return OMPDAG_OK;
}

const char *ompdag_duration_format(double ns, char *buf, size_t size)
{
    static const struct {
        double scale;
        const char *name;
    } units[] = {{1e9, "s"}, {1e6, "ms"}, {1e3, "us"}, {1, "ns"}};
    size_t u = 0;
    while (u + 1 < sizeof units / sizeof units[0] && fabs(ns) < units[u].scale * 0.9995)
        ++u;
    snprintf(buf, size, "%.3g %s", ns / units[u].scale, units[u].name);
    if (strchr(buf, 'e')) snprintf(buf, size, "%.0f %s", ns / units[u].scale, units[u].name);
    return buf;
}
