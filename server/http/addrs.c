/* addrs.c -- the addresses a wildcard bind answers on. See addrs.h. */
#include "addrs.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

static void line(FILE *f, const char *host, int v6, unsigned port, const char *tail) {
    fprintf(f, "schedlab: serving http://%s%s%s:%u/%s\n", v6 ? "[" : "", host, v6 ? "]" : "", port, tail);
}

void addrs_print(FILE *f, const char *bind, unsigned port, const char *tail) {
    int any4 = !bind || !*bind || strcmp(bind, "0.0.0.0") == 0;
    int any6 = bind && (strcmp(bind, "::") == 0 || strcmp(bind, "[::]") == 0);
    if (!any4 && !any6) {
        line(f, bind, strchr(bind, ':') != NULL, port, tail);
        return;
    }
    struct ifaddrs *list = NULL;
    if (getifaddrs(&list) != 0) {
        line(f, any6 ? "::" : "0.0.0.0", any6, port, tail);
        return;
    }
    int printed = 0;
    /* two passes: loopback first, then the addresses teammates use */
    for (int pass = 0; pass < 2; pass++) {
        for (struct ifaddrs *i = list; i; i = i->ifa_next) {
            if (!i->ifa_addr || !(i->ifa_flags & IFF_UP)) continue;
            int loop = (i->ifa_flags & IFF_LOOPBACK) != 0;
            if (loop != (pass == 0)) continue;
            char host[INET6_ADDRSTRLEN];
            int fam = i->ifa_addr->sa_family;
            if (fam == AF_INET) {
                inet_ntop(AF_INET, &((struct sockaddr_in *)(void *)i->ifa_addr)->sin_addr, host, sizeof host);
                line(f, host, 0, port, tail);
                printed++;
            } else if (fam == AF_INET6 && any6) {
                const struct in6_addr *a6 = &((struct sockaddr_in6 *)(void *)i->ifa_addr)->sin6_addr;
                if (IN6_IS_ADDR_LINKLOCAL(a6)) continue;   /* needs a %zone nobody can paste */
                inet_ntop(AF_INET6, a6, host, sizeof host);
                line(f, host, 1, port, tail);
                printed++;
            }
        }
    }
    freeifaddrs(list);
    if (!printed) line(f, any6 ? "::" : "0.0.0.0", any6, port, tail);
}
