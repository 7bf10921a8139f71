/*
 * Container counts for inputs whose format does not store them (JSON), for
 * writers that need them up front (MessagePack): without a count, such a
 * writer holds a container in memory until its end, so one large JSON
 * document would be held whole. Instead a first pass reads the input and
 * records every container's count; the second pass reads it again and puts
 * the counts into the events. The counts go to a temporary file through a
 * small cache, so memory stays bounded whatever the number of containers.
 */
#ifndef SDX_CLI_COUNTS_H
#define SDX_CLI_COUNTS_H

#include <stdbool.h>
#include <stdint.h>

#include "sdx/sdx.h"

/* Counts held per cache page, and pages in the cache. */
#define CLI_COUNTS_PER_PAGE 512
#define CLI_COUNTS_PAGES 64

typedef struct cli_count_page {
    uint64_t index; /* page number in the file */
    bool valid, dirty;
    uint64_t count[CLI_COUNTS_PER_PAGE];
} cli_count_page;

/* One open container during the first pass. */
typedef struct cli_count_frame {
    uint64_t index; /* the container's number, in document order */
    uint64_t items; /* elements, or keys and values */
    bool is_map;
} cli_count_frame;

typedef struct cli_counts {
    int fd;                /* the temporary file: one uint64 per container */
    int io_errno;          /* first error of the temporary file */
    uint64_t containers;   /* containers recorded */
    uint64_t next;         /* second pass: the next container's number */
    cli_count_page *cache; /* CLI_COUNTS_PAGES pages, direct-mapped */
    cli_count_frame *stack;
    size_t depth, cap;
    sdx_source inner;      /* second pass: the reader the counts go into */
} cli_counts;

/* Prepare: create the temporary file (in $TMPDIR, else /tmp; removed at
 * once, so it goes away with the process). Returns 0 or an errno value. */
int cli_counts_init(cli_counts *c);

/* First pass: read every event of `src` and record the counts. Returns
 * SDX_OK, the source's error (reported by the caller through the source),
 * SDX_ERR_NOMEM, or SDX_ERR_IO for the temporary file (errno in io_errno). */
sdx_err cli_counts_record(cli_counts *c, sdx_source src);

/* Second pass: a source that reads `inner` and gives each container its
 * recorded count (an input that grew since leaves the extra containers'
 * counts unknown). Valid while c is. */
sdx_source cli_counts_source(cli_counts *c, sdx_source inner);

/* Release the cache and the temporary file. */
void cli_counts_destroy(cli_counts *c);

#endif /* SDX_CLI_COUNTS_H */
