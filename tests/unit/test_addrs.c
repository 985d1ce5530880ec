/* test_addrs.c -- the addresses `serve` prints (server/http/addrs.h, issue 30):
 * a named bind as it is (IPv6 in brackets), a wildcard bind as one line per
 * interface address of this machine with loopback first, never the
 * wildcard itself. The interfaces are this machine's, read with
 * getifaddrs here as addrs.c reads them, so the test holds on any host. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../server/http/addrs.h"

/* what addrs_print writes, as one string (caller frees) */
static char *printed(const char *bind) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    addrs_print(f, bind, 8080, " (x)");
    fclose(f);
    return buf;
}

static void test_named_bind_as_given(void **state) {
    (void)state;
    char *s = printed("127.0.0.1");
    assert_string_equal(s, "schedlab: serving http://127.0.0.1:8080/ (x)\n");
    free(s);
    s = printed("::1");
    assert_string_equal(s, "schedlab: serving http://[::1]:8080/ (x)\n");
    free(s);
}

static void test_wildcard_lists_interfaces(void **state) {
    (void)state;
    char *s = printed("0.0.0.0");
    assert_null(strstr(s, "0.0.0.0"));
    /* loopback first */
    assert_int_equal(strncmp(s, "schedlab: serving http://127.", 29), 0);
    /* one line per IPv4 address of an interface that is up */
    struct ifaddrs *list = NULL;
    assert_int_equal(getifaddrs(&list), 0);
    int want = 0;
    for (struct ifaddrs *i = list; i; i = i->ifa_next) {
        if (!i->ifa_addr || !(i->ifa_flags & IFF_UP) || i->ifa_addr->sa_family != AF_INET) continue;
        char host[INET_ADDRSTRLEN], line[128];
        inet_ntop(AF_INET, &((struct sockaddr_in *)(void *)i->ifa_addr)->sin_addr, host, sizeof host);
        snprintf(line, sizeof line, "http://%s:8080/ (x)\n", host);
        assert_non_null(strstr(s, line));
        want++;
    }
    freeifaddrs(list);
    int lines = 0;
    for (const char *p = s; *p; p++) lines += *p == '\n';
    assert_int_equal(lines, want);
    free(s);
}

/* the wildcard's other spellings: no bind and "" are 0.0.0.0, "[::]" is
 * "::" (which lists the IPv6 addresses too, none link-local: a fe80::
 * address needs a %zone nobody can paste) */
static void test_wildcard_spellings(void **state) {
    (void)state;
    char *any = printed("0.0.0.0"), *empty = printed(""), *none = printed(NULL);
    assert_string_equal(empty, any);
    assert_string_equal(none, any);
    char *v6 = printed("::"), *br = printed("[::]");
    assert_string_equal(br, v6);
    assert_non_null(strstr(v6, "http://[::1]:8080/ (x)\n"));
    assert_null(strstr(v6, "[fe80:"));
    assert_null(strstr(v6, "[::]"));
    free(any), free(empty), free(none), free(v6), free(br);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_named_bind_as_given),
        cmocka_unit_test(test_wildcard_lists_interfaces),
        cmocka_unit_test(test_wildcard_spellings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
