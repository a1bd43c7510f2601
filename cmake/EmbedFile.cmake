# EmbedFile.cmake: cmake -DINPUT=file -DOUTPUT=file.c -DSYMBOL=name -P EmbedFile.cmake
# Writes `const char SYMBOL[]` holding INPUT's bytes and a terminating zero, so
# the device prelude ships inside the library for run-time compilation.
file(READ "${INPUT}" _hex HEX)
string(LENGTH "${_hex}" _len)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," _bytes "${_hex}")
string(REGEX REPLACE "((0x[0-9a-f][0-9a-f],){16})" "\\1\n" _bytes "${_bytes}")
file(WRITE "${OUTPUT}.tmp"
     "/* Generated from ${INPUT} by cmake/EmbedFile.cmake: do not edit. */\n"
     "const char ${SYMBOL}[] = {\n${_bytes}0x00};\n")
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
