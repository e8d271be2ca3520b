#ifndef SWITCHYARD_CMICROHTTPD_SHIM_H
#define SWITCHYARD_CMICROHTTPD_SHIM_H
#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <microhttpd.h>

// Swift cannot call C variadic functions. These two wrappers pass everything through
// MHD_OPTION_ARRAY / a fixed info type, so the Swift side keeps its type checking.

/// MHD_start_daemon with an options array terminated by MHD_OPTION_END.
static inline struct MHD_Daemon *switchyard_mhd_start_daemon(
    unsigned int flags,
    uint16_t port,
    MHD_AccessHandlerCallback handler,
    void *handler_context,
    const struct MHD_OptionItem *options)
{
    // MHD binds the MHD_OPTION_SOCK_ADDR address in the options; the port only shows in its log lines.
    return MHD_start_daemon(flags, port, NULL, NULL, handler, handler_context,
                            MHD_OPTION_ARRAY, options, MHD_OPTION_END);
}

/// The port the daemon's listening socket is bound to, or 0 if unknown.
static inline uint16_t switchyard_mhd_bound_port(struct MHD_Daemon *daemon)
{
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}
#endif
