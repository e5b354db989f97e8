/*
 * The hypercall layer of the tools, replaced for tests that run the
 * tree's libxenctrl/libxenguest/libxenlight without Xen: the handles
 * xc_interface_open() opens (libxencall, libxenforeignmemory,
 * libxendevicemodel) and the hypercall buffers.  A program linking this
 * file defines the xencallN() functions it answers, the way Xen would;
 * the libraries call these definitions instead of their own.
 */
#include <stdlib.h>
#include <string.h>
#include <xencall.h>
#include <xendevicemodel.h>
#include <xenforeignmemory.h>

struct xencall_handle { int dummy; };
static struct xencall_handle fake_xcall;

xencall_handle *xencall_open(struct xentoollog_logger *logger,
                             unsigned int open_flags)
{
    return &fake_xcall;
}

int xencall_close(xencall_handle *xcall)
{
    return 0;
}

void *xencall_alloc_buffer_pages(xencall_handle *xcall, size_t nr_pages)
{
    void *p;

    if ( posix_memalign(&p, 4096, nr_pages * 4096) )
        return NULL;
    memset(p, 0, nr_pages * 4096);
    return p;
}

void xencall_free_buffer_pages(xencall_handle *xcall, void *p,
                               size_t nr_pages)
{
    free(p);
}

int xencall_buffers_never_fault(xencall_handle *xcall)
{
    return 1;
}

struct xenforeignmemory_handle { int dummy; };
static struct xenforeignmemory_handle fake_fmem;

xenforeignmemory_handle *xenforeignmemory_open(struct xentoollog_logger *l,
                                               unsigned int open_flags)
{
    return &fake_fmem;
}

int xenforeignmemory_close(xenforeignmemory_handle *fmem)
{
    return 0;
}

struct xendevicemodel_handle { int dummy; };
static struct xendevicemodel_handle fake_dmod;

xendevicemodel_handle *xendevicemodel_open(struct xentoollog_logger *l,
                                           unsigned int open_flags)
{
    return &fake_dmod;
}

int xendevicemodel_close(xendevicemodel_handle *dmod)
{
    return 0;
}
