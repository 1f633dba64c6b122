# cmake -DSUNDIALD=<binary> -DEMULATOR=<runner;args or empty> -DOUT=<file.8.gz>
#       -P gen_man.cmake
# Writes `sundiald --man` to OUT, compressed with gzip -9n (no name or time
# stamp in the header, so the file is reproducible).
get_filename_component(_page ${OUT} NAME_WLE)
get_filename_component(_dir ${OUT} DIRECTORY)
execute_process(COMMAND ${EMULATOR} ${SUNDIALD} --man
                OUTPUT_FILE ${_dir}/${_page} RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "${SUNDIALD} --man failed: ${_rc}")
endif()
execute_process(COMMAND gzip -9nf ${_dir}/${_page} RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "gzip ${_dir}/${_page} failed: ${_rc}")
endif()
