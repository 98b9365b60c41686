/*
 * The options the library adds to a JVM it creates: ofinet's jars as its class path, so that the
 * application class loader loads ofinet (bridge.c).
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "boot.h"

#define CLASS_PATH_PREFIX "-Djava.class.path="

char *class_path_option(const char *dir) {
    char *jars[OFINET_MAX_JARS];
    int n = list_jars(dir, jars, OFINET_MAX_JARS);
    if (n <= 0) {
        return NULL;
    }
    size_t len = strlen(CLASS_PATH_PREFIX) + 1;
    for (int i = 0; i < n; i++) {
        len += strlen(jars[i]) + 1;
    }
    char *option = malloc(len);
    if (option != NULL) {
        strcpy(option, CLASS_PATH_PREFIX);
        for (int i = 0; i < n && option != NULL; i++) {
            if (strchr(jars[i], ':') != NULL) {
                free(option); /* ':' separates a class path's entries: these jars cannot be one */
                option = NULL;
            } else {
                strcat(option, i > 0 ? ":" : "");
                strcat(option, jars[i]);
            }
        }
    }
    for (int i = 0; i < n; i++) {
        free(jars[i]);
    }
    return option;
}
