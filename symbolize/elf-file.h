/* elf-file.h: the small ELF helpers that symbolize/'s readers share (the
 * symbol tables, the debug-file finder, MiniDebugInfo, annotate's function
 * reader, the DWARF loader): a section by name, the GNU build-id as hex,
 * libelf's last error as -errno, and the check that an opened file is a
 * regular file. symbolize/ internal. Calls nothing else in symbolize/, so
 * every reader can use it without making a loop of calls between files.
 *
 * The files are untrusted: every note size and offset is checked. Nothing
 * here allocates beyond libelf's own section reads. */
#ifndef PROF_SYMBOLIZE_ELF_FILE_H
#define PROF_SYMBOLIZE_ELF_FILE_H

#include <gelf.h>
#include <stdint.h>

#define ELF_BUILD_ID_MAX 64 /* bytes; ld writes 20 (sha1), other tools 8 to 32 */
#define ELF_BUILD_ID_HEX (2 * ELF_BUILD_ID_MAX + 1) /* its hex and a NUL */

/* The section named `name`, or NULL (also for a file whose section names
 * cannot be read). */
Elf_Scn *elf_section_by_name(Elf *elf, const char *name);

/* The lowercase hex NT_GNU_BUILD_ID of `elf` (PT_NOTE segments first, then
 * SHT_NOTE sections) into hex; "" when it has none or its notes cannot be
 * read. */
void elf_build_id_hex(Elf *elf, char hex[ELF_BUILD_ID_HEX]);

/* -errno for libelf's last error: -ENOMEM when it ran out of memory, else
 * -ENOEXEC (libelf's codes are private; running out of memory is the one
 * worth telling apart from a bad file). */
int elf_last_error(void);

/* Is the open file `fd` something to read as ELF? 0 for a regular file
 * (its size in *size when size is not NULL), -EISDIR for a directory,
 * -ENOEXEC for anything else that is not a regular file, -errno when
 * fstat fails. Does not close fd. */
int elf_fd_regular(int fd, uint64_t *size);

#endif
