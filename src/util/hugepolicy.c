/*
 * util/hugepolicy.c — whether profkit asks for transparent huge pages
 * (pk_huge_pages_wanted(), profkit/status.h).
 *
 * Why it is a question: profkit's answers build arrays of tens to
 * hundreds of megabytes, touched once. On most machines a 2 MiB page
 * costs one fault and one zeroing where 512 pages of 4 KiB cost 512
 * faults, so huge pages win. But a virtual machine whose host takes back
 * the guest's free memory (a virtio balloon with free page reporting:
 * Firecracker, cloud-hypervisor, QEMU with free-page-reporting=on) hands
 * free 2 MiB blocks back to the host once they have been free for a
 * couple of seconds. A huge page is then made of such a block, and its
 * first touch faults the host for every 4 KiB of it; 4 KiB pages come
 * from the fragments the guest never reports. Measured on such a VM
 * (bench/README.md, "Stop 56"): 150 MB touched after the machine sat
 * idle for 6 s took 405-497 ms on huge pages, 95-112 ms on 4 KiB pages;
 * back to back, while the blocks were still backed, 15 ms against 100.
 * A user's run follows a pause far more often than another run, so on
 * such a machine profkit stays on 4 KiB pages.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profkit/status.h"

#define VIRTIO_DEVICES    "/sys/bus/virtio/devices"
#define VIRTIO_BALLOON    0x0005 /* virtio device id of a memory balloon */
#define BALLOON_REPORTING 5      /* VIRTIO_BALLOON_F_REPORTING: free page reporting */

static pthread_once_t decided = PTHREAD_ONCE_INIT;
static int wanted = 1; /* written once, under `decided` */

/* The first line of file `name` in directory `dir`, or "" (buf of size n). */
static void read_attribute(const char *dir, const char *name, char *buf, size_t n)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s/%s", VIRTIO_DEVICES, dir, name);
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f) return;
    if (!fgets(buf, (int)n, f)) buf[0] = '\0';
    fclose(f);
}

/* Whether a virtio balloon of this machine reports free pages to the host
 * (its `features` file holds one '0' or '1' per feature bit, bit 0 first). */
static int host_takes_free_memory(void)
{
    DIR *d = opendir(VIRTIO_DEVICES);
    if (!d) return 0;
    int reports = 0;
    struct dirent *e;
    while (!reports && (e = readdir(d))) {
        char device[32], features[160];
        if (e->d_name[0] == '.') continue;
        read_attribute(e->d_name, "device", device, sizeof device);
        if (strtol(device, NULL, 16) != VIRTIO_BALLOON) continue;
        read_attribute(e->d_name, "features", features, sizeof features);
        reports = strlen(features) > BALLOON_REPORTING && features[BALLOON_REPORTING] == '1';
    }
    closedir(d);
    return reports;
}

static void decide(void)
{
    const char *opt = getenv("PROFKIT_HUGEPAGES");
    if (opt && (!strcmp(opt, "0") || !strcmp(opt, "1")))
        wanted = opt[0] == '1';
    else
        wanted = !host_takes_free_memory();
}

int pk_huge_pages_wanted(void)
{
    pthread_once(&decided, decide);
    return wanted;
}
