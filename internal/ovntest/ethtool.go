package ovntest

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// noTxChecksum turns off transmit checksum offload on dev (ethtool -K dev
// tx off; the kernel then turns TSO off too) in the calling thread's
// network namespace. The root filesystem has no ethtool.
func noTxChecksum(dev string) error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("ethtool %s: %w", dev, err)
	}
	defer unix.Close(fd)
	value := struct{ cmd, data uint32 }{cmd: unix.ETHTOOL_STXCSUM}
	var ifr struct {
		name [unix.IFNAMSIZ]byte
		data unsafe.Pointer
		_    [16]byte // the rest of struct ifreq's union
	}
	if len(dev) >= unix.IFNAMSIZ {
		return fmt.Errorf("ethtool %s: name longer than %d bytes", dev, unix.IFNAMSIZ-1)
	}
	copy(ifr.name[:], dev)
	ifr.data = unsafe.Pointer(&value)
	if _, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), unix.SIOCETHTOOL, uintptr(unsafe.Pointer(&ifr))); errno != 0 {
		return fmt.Errorf("ethtool -K %s tx off: %w", dev, errno)
	}
	return nil
}
