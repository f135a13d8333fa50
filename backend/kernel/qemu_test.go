package kernel_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestVRFInQEMU boots Debian trixie's cloud kernel (it has VRF devices;
// this machine's kernel does not) under QEMU with this package's test
// binary in the initramfs, runs TestVRFGuest there, and reads the result
// off the serial console. scripts/node-kernel prepare installs what it
// needs.
func TestVRFInQEMU(t *testing.T) {
	if os.Getenv("udnkit_guest") != "" {
		t.Skip("inside the guest")
	}
	out, err := exec.Command("../../scripts/node-kernel", "dir").Output()
	if err != nil {
		need(t, "no VRF test kernel: run scripts/node-kernel prepare (as root on Debian)")
	}
	dir := strings.TrimSpace(string(out))
	qemu, err := exec.LookPath("qemu-system-x86_64")
	if err != nil {
		need(t, "qemu-system-x86_64 is not installed (apt-get install qemu-system-x86)")
	}
	work := t.TempDir()
	bin := filepath.Join(work, "kernel.test")
	build := exec.Command("go", "test", "-c", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the guest test binary: %v\n%s", err, out)
	}
	initrd := filepath.Join(work, "initrd.cpio")
	if err := writeInitramfs(initrd, map[string]string{
		"/bin/busybox": "/bin/busybox", "/kernel.test": bin,
		"/vrf.ko": filepath.Join(dir, "vrf.ko"), "/veth.ko": filepath.Join(dir, "veth.ko"),
	}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, qemu, "-nographic", "-no-reboot", "-m", "512", "-kernel", filepath.Join(dir, "vmlinuz"),
		"-initrd", initrd, "-append", "console=ttyS0 panic=-1 quiet udnkit_guest=1")
	console, _ := cmd.CombinedOutput()
	text := string(console)
	if !strings.Contains(text, "--- PASS: TestVRFGuest") || !strings.Contains(text, "udnkit-guest-exit 0") {
		t.Fatalf("the guest's test did not pass:\n%s", tail(text, 6000))
	}
	t.Logf("guest:\n%s", tail(text[strings.Index(text, "=== RUN"):], 2000))
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

const guestInit = `#!/bin/busybox sh
/bin/busybox mkdir -p /proc /sys /tmp
/bin/busybox mount -t proc proc /proc
/bin/busybox mount -t sysfs sys /sys
/bin/busybox insmod /vrf.ko
/bin/busybox insmod /veth.ko
/bin/busybox ip link set lo up
/kernel.test -test.run '^TestVRFGuest$' -test.v
echo "udnkit-guest-exit $?"
/bin/busybox poweroff -f
`

// writeInitramfs writes a newc cpio archive with /init, /dev/console and
// the given files (archive path to host path).
func writeInitramfs(path string, files map[string]string) error {
	var b bytes.Buffer
	ino := 1
	add := func(name string, mode uint32, data []byte, rdevMajor, rdevMinor int) {
		name = strings.TrimPrefix(name, "/")
		fmt.Fprintf(&b, "070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X", ino, mode, 0, 0, 1, 0, len(data), 0, 0,
			rdevMajor, rdevMinor, len(name)+1, 0)
		ino++
		b.WriteString(name + "\x00")
		for b.Len()%4 != 0 {
			b.WriteByte(0)
		}
		b.Write(data)
		for b.Len()%4 != 0 {
			b.WriteByte(0)
		}
	}
	for _, d := range []string{"bin", "dev", "proc", "sys", "tmp"} {
		add(d, 0o040755, nil, 0, 0)
	}
	add("dev/console", 0o020600, nil, 5, 1)
	add("init", 0o100755, []byte(guestInit), 0, 0)
	for name, host := range files {
		f, err := os.Open(host)
		if err != nil {
			return err
		}
		data, err := io.ReadAll(f)
		f.Close()
		if err != nil {
			return err
		}
		add(name, 0o100755, data, 0, 0)
	}
	add("TRAILER!!!", 0, nil, 0, 0)
	return os.WriteFile(path, b.Bytes(), 0o644)
}
