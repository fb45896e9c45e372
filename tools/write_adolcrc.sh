#!/usr/bin/env bash
# Write a .adolcrc into the given directory: ADOL-C reads it from the working directory at its
# first tape and, past its buffers (OBUFSIZE operations, LBUFSIZE locations, VBUFSIZE values,
# TBUFSIZE Taylor coefficients), writes the tape to files. The largest benchmark tape
# (regression/100) has about 0.6 million locations; these sizes hold it in memory.
# Usage: tools/write_adolcrc.sh DIR
set -euo pipefail
size=${ADOLC_BUFSIZE:-1048576}
cat > "$1/.adolcrc" <<RC
"OBUFSIZE" = "$size"
"LBUFSIZE" = "$size"
"VBUFSIZE" = "$size"
"TBUFSIZE" = "$size"
RC
