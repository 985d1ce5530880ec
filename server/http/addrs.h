/* addrs.h -- the addresses a server bound to a wildcard answers on (issue
 * 30): `serve --bind 0.0.0.0` prints one link per interface address (what
 * teammates type), not "http://0.0.0.0:8080/", which opens nothing.
 *
 *   addrs_print  one "schedlab: serving http://ADDR:PORT/" line per address */
#ifndef SCHEDLAB_ADDRS_H
#define SCHEDLAB_ADDRS_H

#include <stdint.h>
#include <stdio.h>

/* bind as given to serve; a wildcard (0.0.0.0, ::, "") lists every IPv4
 * (and for ::, IPv6) interface address, loopback first; any other bind is
 * printed as it is. tail follows each line (the db and web directories). */
void addrs_print(FILE *f, const char *bind, unsigned port, const char *tail);

#endif
